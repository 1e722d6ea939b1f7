// Evidence retention on a started gateway with an injected clock: a turn's evidence older than obs.retentionDays is
// deleted by the sweep (obs.storage.sweep runs it now), a newer turn's stays, obs.storage.stats reports the tables, the
// database size and the last sweep, and obs.retentionDays changes live through config.patch. A turn's learning outcome
// record is evidence too: swept with the turn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1, 12);

interface TableStats {
  table: string;
  rows: number;
  oldestMs: number | null;
}

describe('evidence retention on a started gateway', () => {
  let llm: FakeLlm;
  let harness: Harness;
  const clock = { now: NOW - 40 * DAY };
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      app: { now: () => clock.now },
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
  });
  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  const admin = async (method: string, params: unknown = {}) => {
    const response = await callRpc(harness.url, harness.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as Record<string, unknown>;
  };
  const turn = (peerId: string) =>
    admin('agent.execute', {
      message: 'hello',
      sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'test', peerId },
    });
  const tables = async () => ((await admin('obs.storage.stats')).storage as { tables: TableStats[] }).tables;
  const rowsOf = async (table: string) => (await tables()).find((entry) => entry.table === table)?.rows;
  /** Learning writes a turn's outcome record off the turn's path: waits until `count` are stored. */
  const outcomeRecords = (count: number) =>
    expect.poll(() => rowsOf('learning_outcomes'), { timeout: 10_000, interval: 250 }).toBe(count);

  it('sweeps a turn older than the window and keeps a newer one; the stats report both sides of it', async () => {
    await turn('old');
    clock.now = NOW - DAY;
    await turn('recent');
    await outcomeRecords(2);
    clock.now = NOW;
    const before = await admin('obs.storage.stats');
    expect(before).toMatchObject({
      retentionDays: 30,
      sweepIntervalMs: 3_600_000,
      lastSweep: null,
      storage: { backend: 'sqlite' },
    });
    expect((before.storage as { databaseBytes: number }).databaseBytes).toBeGreaterThan(0);
    expect(await rowsOf('session_index')).toBe(2);
    const billingBefore = await admin('obs.billing.total', { sinceMs: NOW - 7 * DAY });

    const sweep = await admin('obs.storage.sweep');
    expect(sweep).toMatchObject({
      outcome: 'swept',
      retentionDays: 30,
      cutoffMs: NOW - 30 * DAY,
      deleted: { session_index: 1, token_usage: 1, learning_outcomes: 1, procedure_uses: 0 },
    });
    expect((sweep.deleted as Record<string, number>).trajectory).toBeGreaterThan(0);

    expect(await rowsOf('session_index')).toBe(1);
    expect(await rowsOf('learning_outcomes')).toBe(1);
    for (const entry of await tables())
      if (entry.rows > 0) expect(entry.oldestMs, entry.table).toBeGreaterThan(NOW - 30 * DAY);
    expect(await admin('obs.billing.total', { sinceMs: NOW - 7 * DAY })).toEqual(billingBefore);
    expect((await admin('obs.storage.stats')).lastSweep).toEqual(sweep);
  });

  it('applies a changed obs.retentionDays at the next sweep, and 0 keeps everything', async () => {
    await admin('config.patch', { obs: { retentionDays: 0 } });
    clock.now = NOW + 60 * DAY;
    expect(await admin('obs.storage.sweep')).toMatchObject({ outcome: 'off', cutoffMs: null });
    expect(await rowsOf('session_index')).toBe(1);
    await admin('config.patch', { obs: { retentionDays: 7 } });
    expect(await admin('obs.storage.stats')).toMatchObject({ retentionDays: 7 });
    expect(await admin('obs.storage.sweep')).toMatchObject({
      outcome: 'swept',
      retentionDays: 7,
      deleted: { session_index: 1, learning_outcomes: 1 },
    });
    expect(await rowsOf('session_index')).toBe(0);
    expect(await rowsOf('learning_outcomes')).toBe(0);
    expect(
      await callRpc(harness.url, harness.tokens.admin, 'config.patch', { obs: { retentionDays: -1 } }),
    ).toMatchObject({
      error: { code: -32602, data: { param: 'obs.retentionDays' } },
    });
  });
});
