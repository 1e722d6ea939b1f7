// run.kill, lease.revoke, run.list and run.get over POST /rpc: admin scope, strict params, not_found naming runId, filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { injectRpc } from '../support/http-client.js';

describe('run control methods', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startGateway({ listen: false });
  });
  afterAll(async () => {
    await harness.close();
  });

  const call = (method: string, params?: unknown, token = harness.tokens.admin) =>
    injectRpc(harness.app, token, method, params);

  it.each(['run.kill', 'lease.revoke', 'run.get', 'run.list'])(
    '%s is admin scope: an rpc token is refused',
    async (method) => {
      const params = method === 'run.list' ? {} : { runId: 'r' };
      expect((await call(method, params, harness.tokens.rpc)).error).toMatchObject({
        code: -32603,
        message: "Insufficient scope: requires 'admin'",
      });
    },
  );

  it.each(['run.kill', 'lease.revoke', 'run.get'])(
    '%s takes exactly { runId } and answers not_found naming runId for an unknown run',
    async (method) => {
      expect((await call(method, {})).error).toMatchObject({ code: -32602, message: expect.stringContaining('runId') });
      expect((await call(method, { run_id: 'r' })).error).toMatchObject({ code: -32602 });
      expect((await call(method, { runId: 'r', force: true })).error).toMatchObject({ code: -32602 });
      expect((await call(method, { runId: 'missing' })).error).toMatchObject({
        code: -32603,
        message: 'Run not found: missing',
        data: { kind: 'not_found', param: 'runId' },
      });
    },
  );

  it('run.list refuses unknown statuses, kinds and limits out of range', async () => {
    expect((await call('run.list', { status: 'paused' })).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('status'),
    });
    expect((await call('run.list', { kind: 'manual' })).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('kind'),
    });
    expect((await call('run.list', { limit: 0 })).error).toMatchObject({ code: -32602 });
    expect((await call('run.list', { limit: 501 })).error).toMatchObject({ code: -32602 });
    expect((await call('run.list', { status: 'revoked', kind: 'cron', limit: 500 })).result).toEqual({ runs: [] });
  });

  it('run.list and run.get show a spawned run with its kind and tree; limit and filters narrow the list', async () => {
    const spawned = [];
    for (const task of ['one', 'two']) {
      const { result } = await call('session.spawn', { parentKey: 'default:ops:rpc:list', task });
      spawned.push(result as { runId: string });
    }
    await expect
      .poll(async () => ((await call('run.list', { status: 'running' })).result as { runs: unknown[] }).runs.length, {
        timeout: 10_000,
      })
      .toBe(0);
    const [first, second] = spawned;
    const listed = (await call('run.list', {})).result as { runs: { runId: string }[] };
    expect(listed.runs.map((run) => run.runId).sort()).toEqual([first?.runId, second?.runId].sort());
    expect(((await call('run.list', { limit: 1 })).result as { runs: unknown[] }).runs).toHaveLength(1);
    expect(
      ((await call('run.list', { rootRunId: first?.runId })).result as { runs: { runId: string }[] }).runs.map(
        (run) => run.runId,
      ),
    ).toEqual([first?.runId]);
    expect(((await call('run.list', { kind: 'cron' })).result as { runs: unknown[] }).runs).toEqual([]);
    const entry = (await call('run.get', { runId: first?.runId })).result;
    // Without a provider the turn fails; the entry is session.run_status's plus where the run sits.
    expect(entry).toMatchObject({
      runId: first?.runId,
      status: 'failed',
      task: 'one',
      agentId: 'default',
      kind: 'spawn',
      rootRunId: first?.runId,
      parentKey: 'default:ops:rpc:list',
    });
    const { kind: _kind, rootRunId: _root, parentKey: _parent, ...statusEntry } = entry as Record<string, unknown>;
    expect((await call('session.run_status', { run_id: first?.runId })).result).toEqual(statusEntry);
    expect((await call('run.kill', { runId: first?.runId })).result).toEqual({ runId: first?.runId, status: 'failed' });
  });
});
