// Dashboard end to end: a chat that streams token by token with a tool step, then that session and its incident report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

describe('dashboard chat and sessions', () => {
  let world: DashboardWorld;
  let sessionKey = '';
  beforeAll(async () => {
    world = await startDashboardWorld({
      extraAgents: { patient: { name: 'Patient', provider: 'fake', model: 'fake-model', tools: ['mcp:files'] } },
    });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('streams the reply into the conversation, then shows the tool call as a collapsible step', async () => {
    const { page } = world.browser;
    world.llm.script(
      { toolCalls: [{ name: 'current_time', arguments: {} }] },
      { deltas: ['The time ', 'is shown ', 'above.'], chunkDelayMs: 700 },
    );
    await openSignedIn(world, 'chat');
    await expect
      .poll(() => new URL(page.url()).searchParams.get('session') ?? '')
      .toMatch(/^default:dashboard:dashboard:/);
    sessionKey = new URL(page.url()).searchParams.get('session') ?? '';
    await page.getByLabel('Message', { exact: true }).fill('What time is it?');
    await page.getByRole('button', { name: 'Send' }).click();
    // Part of the answer is on screen while the rest is still being generated.
    const streaming = page.locator('[data-streaming="true"]');
    await expect.poll(() => streaming.textContent(), { timeout: 10_000 }).toMatch(/^The time (is shown )?$/);
    const log = page.getByRole('log', { name: 'Conversation' });
    // The whole text is on screen with the last delta, while the streaming bubble waits for the turn's end (its
    // transcript committed); then the bubble becomes the stored answer.
    await expect.poll(() => log.getByText('The time is shown above.').count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => streaming.count()).toBe(0);
    const step = log.locator('details', { hasText: 'Tool call: current_time' });
    expect(await step.count()).toBe(1);
    await step.locator('summary').click();
    expect(await step.getAttribute('open')).not.toBeNull();
    await capture(world, 'chat');
    expect(world.browser.problems).toEqual([]);
  });

  it('lists the session, opens it and reads its incident report in words', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'sessions');
    const link = page.getByRole('link', { name: sessionKey });
    await expect.poll(() => link.count()).toBe(1);
    await capture(world, 'sessions');
    await link.click();
    const report = page.getByRole('article', { name: 'Incident report' });
    await expect.poll(() => report.count(), { timeout: 10_000 }).toBe(1);
    expect(await report.getByRole('heading', { name: 'Likely root cause' }).count()).toBe(1);
    expect(await report.textContent()).toContain('current_time');
    // Cost, tokens and duration are shown as values, not as JSON.
    expect(await report.getByText('Tokens', { exact: true }).count()).toBe(1);
    expect(await page.getByRole('log', { name: 'Conversation' }).getByText('What time is it?').count()).toBe(1);
    await capture(world, 'session-detail');
    await page.getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => page.getByText(/Cleared \d+ messages\./).count()).toBe(1);
    expect(world.browser.problems).toEqual([]);
  });

  it("shows the provider's own message on a failed chat message, and in that session's incident report", async () => {
    const { page } = world.browser;
    world.llm.script({ status: 500, errorMessage: 'upstream exploded' });
    await openSignedIn(world, 'chat');
    await expect
      .poll(() => new URL(page.url()).searchParams.get('session') ?? '')
      .toMatch(/^default:dashboard:dashboard:/);
    const failedKey = new URL(page.url()).searchParams.get('session') ?? '';
    await page.getByLabel('Message', { exact: true }).fill('Hello?');
    await page.getByRole('button', { name: 'Send' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'upstream exploded' });
    await expect.poll(() => alert.count(), { timeout: 10_000 }).toBe(1);
    expect(await alert.textContent()).toContain(
      'Model call to fake/fake-model failed: server (HTTP 500): upstream exploded',
    );
    await capture(world, 'chat-failed');

    await openSignedIn(world, `sessions?key=${encodeURIComponent(failedKey)}`);
    const report = page.getByRole('article', { name: 'Incident report' });
    await expect.poll(() => report.count(), { timeout: 10_000 }).toBe(1);
    const failures = report.getByRole('list', { name: 'Failures' });
    await expect.poll(() => failures.count()).toBe(1);
    expect(await failures.textContent()).toContain('fake/fake-model');
    expect(await failures.textContent()).toContain('HTTP 500');
    expect(await failures.textContent()).toContain('upstream exploded');
    expect(await report.textContent()).not.toContain('No failures recorded');
    expect(await report.textContent()).toContain('upstream_failed');
    // The next steps speak of the page, not of the report's JSON fields.
    expect(await report.getByRole('list', { name: 'Next steps' }).textContent()).not.toContain('failures[]');
    await capture(world, 'session-detail-failed');
    expect(world.browser.problems).toEqual([]);
  });

  it("links the dashboard pages an incident report's next steps point to, rather than naming methods", async () => {
    const { page } = world.browser;
    await openSignedIn(world, `sessions?key=${encodeURIComponent('default:dashboard:dashboard:never-was')}`);
    const steps = page.getByRole('list', { name: 'Next steps' });
    await expect.poll(() => steps.getByRole('link').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await steps.textContent()).not.toMatch(/\b(obs|session|config|models|cron|memory|mcp)\.[a-z_]+/);
    const firstLink = steps.getByRole('link').first();
    const href = await firstLink.getAttribute('href');
    expect(href).toMatch(/^\/app\/[a-z]+$/);
    await firstLink.click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(href);
    expect(world.browser.problems).toEqual([]);
  });

  it('marks a failed message with its error and answers it after Retry', async () => {
    const { page } = world.browser;
    world.llm.script({ status: 500, errorMessage: 'upstream hiccup' }, { text: 'Second try worked.' });
    await openSignedIn(world, 'chat');
    await page.getByLabel('Message', { exact: true }).fill('Are you there?');
    await page.getByRole('button', { name: 'Send' }).click();
    const log = page.getByRole('log', { name: 'Conversation' });
    const failed = log.locator('.msg.failed', { hasText: 'Are you there?' });
    await expect.poll(() => failed.count(), { timeout: 10_000 }).toBe(1);
    expect(await failed.getByRole('alert').textContent()).toContain('upstream hiccup');
    await capture(world, 'chat-failed-retry');
    await failed.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => log.getByText('Second try worked.').count(), { timeout: 10_000 }).toBe(1);
    expect(await log.locator('.msg.failed').count()).toBe(0);
    expect(await log.getByRole('alert').count()).toBe(0);
    expect(world.browser.problems).toEqual([]);
  });

  it('says the turn waits for approval of its tool instead of an empty bubble', async () => {
    const { page } = world.browser;
    world.llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'It is now.' });
    await openSignedIn(world, 'chat?agent=guarded');
    await page.getByLabel('Message', { exact: true }).fill('What time is it?');
    await page.getByRole('button', { name: 'Send' }).click();
    const waiting = page.locator('[data-streaming="true"]');
    await expect.poll(() => waiting.textContent(), { timeout: 10_000 }).toBe('Waiting for approval: current_time');
    await capture(world, 'chat-waiting-approval');
    const admin = (method: string, params: Record<string, unknown>) =>
      callRpc(world.gateway.url, world.gateway.tokens.admin, method, params);
    const pending = (await admin('admin.approval.pending', {})).result as { requests: { id: string }[] };
    expect(pending.requests).toHaveLength(1);
    await admin('admin.approval.resolve', { id: pending.requests[0]?.id, approved: true });
    const log = page.getByRole('log', { name: 'Conversation' });
    await expect.poll(() => log.getByText('It is now.').count(), { timeout: 10_000 }).toBe(1);
    expect(world.browser.problems).toEqual([]);
  });

  it('says which tool the turn is calling while it runs', async () => {
    const { page } = world.browser;
    // The fixture's slow tool answers after 3 s: the pending bubble names it all that time.
    world.llm.script({ toolCalls: [{ name: 'files__slow', arguments: { ms: 3000 } }] }, { text: 'It is half past.' });
    await openSignedIn(world, 'chat?agent=patient');
    await page.getByLabel('Message', { exact: true }).fill('What time is it now?');
    await page.getByRole('button', { name: 'Send' }).click();
    const pending = page.locator('[data-streaming="true"]');
    await expect.poll(() => pending.textContent(), { timeout: 10_000 }).toBe('Calling tool files__slow…');
    const log = page.getByRole('log', { name: 'Conversation' });
    await expect.poll(() => log.getByText('It is half past.').count(), { timeout: 15_000 }).toBe(1);
    expect(world.browser.problems).toEqual([]);
  });

  it("shows a turn's trace as a waterfall: both tool calls with their durations between the model calls", async () => {
    const { page } = world.browser;
    world.llm.script(
      { toolCalls: [{ name: 'current_time', arguments: {} }] },
      { toolCalls: [{ name: 'current_time', arguments: {} }] },
      { text: 'Twice checked.' },
    );
    const sessionKey = 'default:ops:dashboard:two-tools';
    const reply = await fetch(`${world.gateway.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.gateway.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'What time is it, twice?', sessionKey }),
    });
    expect(((await reply.json()) as { response: string }).response).toBe('Twice checked.');
    await openSignedIn(world, `sessions?key=${encodeURIComponent(sessionKey)}`);
    const turns = page.getByRole('region', { name: 'Turns' });
    await turns.getByRole('button', { name: /^Trace of the turn at/ }).click();
    const spans = turns.getByRole('list', { name: 'Spans' }).getByRole('listitem');
    await expect.poll(() => spans.count(), { timeout: 10_000 }).toBe(5);
    const texts = await spans.allTextContents();
    const tools = texts.filter((text) => text.startsWith('Tool current_time'));
    expect(tools).toHaveLength(2);
    for (const tool of tools) expect(tool).toMatch(/ok \d+ ms/);
    expect(texts.filter((text) => text.startsWith('Model fake/fake-model'))).toHaveLength(3);
    await capture(world, 'session-trace');
    expect(world.browser.problems).toEqual([]);
  });
});
