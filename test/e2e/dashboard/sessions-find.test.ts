// Dashboard end to end: finding sessions on the Sessions page — a transcript hit from the search box opens its
// session; priced turns show their outcome, tokens, cost, owner and channel; a session created while the page is open
// appears at the top without a reload; /v1 sessions are hidden, counted per channel, and listed under it on request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

describe('dashboard sessions: search, columns, live rows and /v1 sessions', () => {
  let world: DashboardWorld;
  beforeAll(async () => {
    world = await startDashboardWorld();
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  const call = async (token: string, method: string, params?: unknown) => {
    const response = await callRpc(world.gateway.url, token, method, params);
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return response.result;
  };
  const execute = (userId: string, channelId: string, message: string) =>
    call(world.gateway.tokens.rpc, 'agent.execute', {
      message,
      sessionKey: { tenantId: 'default', userId, channelId },
    });
  const rowOf = (key: string) => world.browser.page.locator('table tbody tr').filter({ hasText: key });
  const cell = (key: string, label: string) => rowOf(key).locator(`td[data-label="${label}"]`).first().textContent();

  it('shows outcome, tokens, cost, owner and channel after priced turns, and finds a session by its transcript', async () => {
    // fake-model is priced $1 per million input tokens and $2 per million output: 2 × (1,000 + 500 × 2) = $0.004.
    for (const turn of [1, 2]) {
      world.llm.script({ text: `answer ${turn}`, usage: { inputTokens: 1_000, outputTokens: 500 } });
      await execute('finder', 'webchat', `turn ${turn} about zebra marmalade`);
    }
    world.llm.script({ status: 500, errorMessage: 'upstream exploded' });
    await call(world.gateway.tokens.rpc, 'agent.execute', {
      message: 'this one fails',
      sessionKey: { tenantId: 'default', userId: 'failer', channelId: 'cli' },
    }).catch(() => undefined);
    const { sessions } = (await call(world.gateway.tokens.admin, 'session.list', {})) as {
      sessions: { sessionKey: string; ownerId: string }[];
    };
    const owner = sessions.find((session) => session.sessionKey === 'default:finder:webchat')?.ownerId;
    expect(owner).toEqual(expect.any(String));

    const { page } = world.browser;
    await openSignedIn(world, 'sessions');
    const finder = 'default:finder:webchat';
    await expect.poll(() => cell(finder, 'Outcome'), { timeout: 10_000 }).toBe('completed');
    expect(await cell(finder, 'Tokens')).toBe('3,000');
    expect(await cell(finder, 'Cost')).toBe('$0.00400');
    expect(await cell(finder, 'Channel')).toBe('webchat');
    expect(await cell(finder, 'Owner')).toBe(owner);
    expect(await cell('default:failer:cli', 'Outcome')).toBe('error');
    await expect
      .poll(() => page.getByRole('navigation', { name: 'Session pages' }).textContent())
      .toContain('1–2 of 2');
    expect(await page.getByRole('button', { name: 'Download sessions as CSV' }).count()).toBe(1);

    // The outcome filter is kept in the address and answered by the server.
    await page.getByLabel('Outcome', { exact: true }).selectOption('error');
    await expect.poll(() => page.locator('table tbody tr').count()).toBe(1);
    expect(await cell('default:failer:cli', 'Outcome')).toBe('error');
    expect(new URL(page.url()).searchParams.get('outcome')).toBe('error');
    await page.getByLabel('Outcome', { exact: true }).selectOption('');
    await expect.poll(() => page.locator('table tbody tr').count()).toBe(2);

    await page.getByLabel('Search transcripts').fill('marmalade');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const results = page.getByRole('list', { name: 'Search results' });
    await expect.poll(() => results.getByRole('link').allTextContents()).toEqual([finder]);
    expect(await results.locator('mark').first().textContent()).toBe('marmalade');
    await capture(world, 'sessions-find');
    await results.getByRole('link', { name: finder }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('key')).toBe(finder);
    await expect.poll(() => page.getByText('turn 2 about zebra marmalade').count()).toBeGreaterThan(0);
  }, 60_000);

  it('adds a session created while the page is open at the top, without a reload', async () => {
    const { page } = world.browser;
    await openSignedIn(world, 'sessions');
    const firstKey = () => page.locator('table tbody tr').first().locator('td').first().textContent();
    await expect.poll(firstKey, { timeout: 10_000 }).not.toBe(null);
    // A reload would lose this mark.
    await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
    world.llm.script({ text: 'hello newcomer', usage: { inputTokens: 10, outputTokens: 5 } });
    await execute('newcomer', 'webchat', 'hello');
    await expect.poll(firstKey, { timeout: 10_000 }).toBe('default:newcomer:webchat');
    expect(await page.evaluate(() => 'sameDocument' in globalThis)).toBe(true);
  }, 60_000);

  it('hides /v1 sessions, says how many per channel, and lists them under their channel on request', async () => {
    for (const question of ['first', 'second']) {
      world.llm.script({ text: `v1 ${question}` });
      const response = await fetch(`${world.gateway.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${world.gateway.tokens.rpc}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake-model', input: `${question} question` }),
      });
      expect(response.status).toBe(200);
    }
    const { page } = world.browser;
    await openSignedIn(world, 'sessions');
    await expect.poll(() => page.getByText('2 /v1 sessions on openai').count(), { timeout: 10_000 }).toBe(1);
    const main = page.getByRole('table', { name: 'Sessions, most recently updated first' });
    expect(await main.locator('tbody tr').filter({ hasText: ':openai:' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Show /v1 sessions' }).click();
    const grouped = page.getByRole('table', { name: 'Sessions of the /v1 channel openai' });
    await expect.poll(() => grouped.locator('tbody tr').count()).toBe(2);
    expect(await grouped.locator('tbody tr td[data-label="Channel"]').allTextContents()).toEqual(['openai', 'openai']);
    expect(new URL(page.url()).searchParams.get('api')).toBe('1');
    expect(await main.locator('tbody tr').filter({ hasText: ':openai:' }).count()).toBe(0);
    await capture(world, 'sessions-v1');
    await page.getByRole('button', { name: 'Hide /v1 sessions' }).click();
    await expect.poll(() => grouped.count()).toBe(0);
  }, 60_000);
});
