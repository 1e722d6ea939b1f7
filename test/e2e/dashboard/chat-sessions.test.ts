// Dashboard end to end: a chat that streams token by token with a tool step, then that session and its incident report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

describe('dashboard chat and sessions', () => {
  let world: DashboardWorld;
  let sessionKey = '';
  beforeAll(async () => {
    world = await startDashboardWorld();
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
    await capture(world, 'session-detail-failed');
    expect(world.browser.problems).toEqual([]);
  });
});
