// Dashboard end to end: approve a tool call that waits for an operator; change a config section and roll it back; the
// overview names changed config that waits for a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

describe('dashboard approvals and config', () => {
  let world: DashboardWorld;
  const admin = async (method: string, params: Record<string, unknown> = {}) => {
    const response = await callRpc(world.gateway.url, world.gateway.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result;
  };
  beforeAll(async () => {
    world = await startDashboardWorld();
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('shows a pending tool call as it arrives and approves it, so the waiting turn finishes', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'approvals');
    await expect.poll(() => page.getByText('Nothing is waiting for a decision.').count()).toBe(1);
    await capture(world, 'approvals-empty');
    world.llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'Approved and done.' });
    // The turn of the guarded agent stops at current_time until someone decides.
    const turn = fetch(`${world.gateway.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.gateway.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        message: 'What time is it?',
        agentId: 'guarded',
        sessionKey: 'default:ops:dashboard:approval',
      }),
    });
    const card = page.getByRole('listitem', { name: 'current_time for guarded' });
    await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(1);
    await capture(world, 'approvals');
    await card.getByRole('button', { name: 'Approve' }).click();
    const reply = (await (await turn).json()) as { response: string; finishReason: string };
    expect(reply).toMatchObject({ response: 'Approved and done.', finishReason: 'stop' });
    await expect.poll(() => page.getByText('current_time approved.').count()).toBe(1);
    await expect.poll(() => card.count()).toBe(0);
    expect(world.browser.problems).toEqual([]);
  });

  it('counts a waiting tool call in the navigation on any page, and denies it with a reason the model reads and the history shows', async () => {
    const { page } = world.browser;
    await openSignedIn(world, '');
    const link = page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: /^Approvals/ });
    const linkText = async () => (await link.textContent())?.trim();
    await expect.poll(linkText).toBe('Approvals');
    world.llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'Denied, so no time.' });
    const turn = fetch(`${world.gateway.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.gateway.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        message: 'What time is it?',
        agentId: 'guarded',
        sessionKey: 'default:ops:dashboard:deny',
      }),
    });
    // The overview never reloads: the count arrives with the approval:requested event.
    await expect.poll(linkText, { timeout: 10_000 }).toBe('Approvals 1 waiting');
    await capture(world, 'nav-approvals-badge');
    await link.click();
    const card = page.getByRole('listitem', { name: 'current_time for guarded' });
    await card.getByLabel('Reason for a denial (optional)').fill('Change freeze until Monday');
    await card.getByRole('button', { name: 'Deny' }).click();
    const reply = (await (await turn).json()) as { response: string };
    expect(reply.response).toBe('Denied, so no time.');
    expect(JSON.stringify(world.llm.chatRequests().at(-1)?.body)).toContain('Change freeze until Monday');
    await expect.poll(() => page.getByText('current_time denied.').count()).toBe(1);
    await expect.poll(linkText).toBe('Approvals');
    // The decision, its operator and its reason are in the history.
    const decision = page
      .getByRole('region', { name: 'Decisions' })
      .getByRole('row', { name: /Change freeze until Monday/ });
    await expect.poll(() => decision.count()).toBe(1);
    expect(await decision.textContent()).toMatch(/current_time.*guarded.*denied.*admin/);
    await capture(world, 'approvals-history');
    expect(world.browser.problems).toEqual([]);
  });

  it('saves an edited section as a commit, shows its diff and rolls it back', async () => {
    const { page } = world.browser;
    const before = (await admin('config.read', { section: 'agents' })) as Record<string, Record<string, unknown>>;
    await openSignedIn(world, 'config');
    await page.getByLabel('Section', { exact: true }).selectOption('agents');
    const editor = page.getByLabel(/^Section agents/);
    await expect.poll(() => editor.count()).toBe(1);
    const agents = JSON.parse(await editor.inputValue()) as Record<string, Record<string, unknown>>;
    agents.default = { ...agents.default, systemPrompt: 'Answer in one sentence.' };
    await editor.fill(JSON.stringify(agents, null, 2));
    await page.getByRole('button', { name: 'Save section' }).click();
    await expect.poll(() => page.getByText('Saved agents.').count()).toBe(1);
    expect(await admin('config.read', { section: 'agents' })).toMatchObject({
      default: { systemPrompt: 'Answer in one sentence.' },
    });
    await expect
      .poll(async () => (JSON.parse(await editor.inputValue()) as typeof agents).default?.systemPrompt)
      .toBe('Answer in one sentence.');
    const history = page.getByRole('region', { name: 'History' });
    const entries = history.getByRole('listitem');
    await expect.poll(() => entries.count()).toBeGreaterThanOrEqual(2);
    await entries.first().getByRole('button', { name: 'Show diff' }).click();
    await expect.poll(() => history.locator('pre').textContent()).toContain('Answer in one sentence.');
    await capture(world, 'config');
    await entries
      .nth(1)
      .getByRole('button', { name: /^Roll back to/ })
      .click();
    await expect.poll(() => page.getByText(/^Rolled back to/).count()).toBe(1);
    const restored = (await admin('config.read', { section: 'agents' })) as Record<string, Record<string, unknown>>;
    await expect
      .poll(async () => (JSON.parse(await editor.inputValue()) as typeof agents).default?.systemPrompt)
      .toBe(before.default?.systemPrompt);
    expect(restored.default?.systemPrompt).toBe(before.default?.systemPrompt);
    expect(restored.default?.systemPrompt).not.toBe('Answer in one sentence.');
    expect(world.browser.problems).toEqual([]);
  });

  it('answers invalid JSON and invalid values next to the editor without saving', async () => {
    const { page } = world.browser;
    const commits = ((await admin('config.history', {})) as { entries: unknown[] }).entries.length;
    await page.getByLabel('Section', { exact: true }).selectOption('gateway');
    const editor = page.getByLabel(/^Section gateway/);
    await editor.fill('{ not json');
    await page.getByRole('button', { name: 'Save section' }).click();
    await expect.poll(() => page.locator('#config-gateway-error').textContent()).toContain('Not valid JSON');
    const gateway = (await admin('config.read', { section: 'gateway' })) as Record<string, unknown>;
    await editor.fill(JSON.stringify({ ...gateway, maxBatchSize: -5 }, null, 2));
    await page.getByRole('button', { name: 'Save section' }).click();
    await expect.poll(() => page.locator('#config-gateway-error').textContent()).toContain('maxBatchSize');
    expect(((await admin('config.history', {})) as { entries: unknown[] }).entries).toHaveLength(commits);
    expect(world.browser.problems).toEqual([]);
  });

  it('tells on the overview which changed config keys wait for a restart, until they are undone', async () => {
    const { page } = world.browser;
    const notice = () => page.getByRole('status').filter({ hasText: 'applies only at the next restart' });
    await openSignedIn(world, '');
    await expect.poll(() => page.getByText('Uptime').count()).toBe(1);
    expect(await notice().count()).toBe(0);
    await admin('config.set', { section: 'gateway', key: 'sseReplayEvents', value: 5 });
    await openSignedIn(world, '');
    await expect.poll(() => notice().textContent()).toContain('gateway.sseReplayEvents');
    await capture(world, 'overview-restart-pending');
    await admin('config.set', { section: 'gateway', key: 'sseReplayEvents', value: null });
    await openSignedIn(world, '');
    await expect.poll(() => page.getByText('Uptime').count()).toBe(1);
    expect(await notice().count()).toBe(0);
    expect(world.browser.problems).toEqual([]);
  });
});
