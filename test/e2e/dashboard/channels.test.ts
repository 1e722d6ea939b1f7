// Dashboard end to end: the Channels page — a Telegram connection (grammy against a fake Bot API) listed connected with
// its agent and counters, tested live, disabled (its polling stops) and enabled again from the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTelegram, type FakeTelegram } from '../../support/fake-telegram.js';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

const TOKEN = '123456:dashboard-token';

interface ChannelRow {
  id: string;
  enabled: boolean;
  state: string;
}

describe('dashboard channels', () => {
  let telegram: FakeTelegram;
  let world: DashboardWorld;
  beforeAll(async () => {
    telegram = await startFakeTelegram({ token: TOKEN });
    world = await startDashboardWorld({
      channels: {
        tg: {
          kind: 'telegram',
          agentId: 'default',
          token: TOKEN,
          apiBaseUrl: telegram.apiRoot,
          allow: { senders: ['*'] },
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    await telegram?.close();
  });

  const channels = async () => {
    const response = await callRpc(world.gateway.url, world.gateway.tokens.admin, 'channels.list', {});
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return (response.result as { channels: ChannelRow[] }).channels;
  };

  it('lists a connection with its state, tests it, disables and enables it', async () => {
    await expect.poll(async () => (await channels())[0]?.state, { timeout: 15_000 }).toBe('connected');
    const { page } = world.browser;
    await openSignedIn(world, 'channels');
    const row = page.getByRole('row', { name: 'Channel tg' });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    expect(await row.textContent()).toContain('telegram');
    expect(await row.textContent()).toContain('connected');
    await capture(world, 'channels');

    await row.getByRole('button', { name: 'Test tg' }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'tg answered: ' }).count(), { timeout: 10_000 })
      .toBe(1);
    expect(telegram.calls.filter((call) => call.method === 'getMe').length).toBeGreaterThan(0);

    await row.getByRole('button', { name: 'Disable tg' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Disabled tg.' }).count()).toBe(1);
    expect(await channels()).toMatchObject([{ id: 'tg', enabled: false, state: 'disabled' }]);
    await expect.poll(async () => (await row.textContent()) ?? '').toContain('disabled');
    expect(await row.getByRole('button', { name: 'Test tg' }).isDisabled()).toBe(true);

    await row.getByRole('button', { name: 'Enable tg' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Enabled tg.' }).count()).toBe(1);
    await expect.poll(async () => (await channels())[0]?.state, { timeout: 15_000 }).toBe('connected');
    expect(world.browser.problems).toEqual([]);
  });
});
