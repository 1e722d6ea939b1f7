// obs.* over JSON-RPC: every method through the registry and dispatcher, scopes, strict params, defaults and limits.
import type { Caller } from '../../src/server/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/obs/logger.js';
import { createDispatcher, createRegistry, type JsonRpcResponse } from '../../src/rpc/index.js';
import { obsMethods } from '../../src/obs/methods.js';
import { delivered, startObs, type ObsStack } from './support.js';

const ADMIN: Caller = { clientId: 'admin', scopes: ['*'] };
const ADMIN_ONLY: Caller = { clientId: 'admin-only', scopes: ['admin'] };
const RPC: Caller = { clientId: 'client', scopes: ['rpc'] };

/** Each method with params that pass its schema. */
const CALLS: [string, Record<string, unknown>][] = [
  ['obs.diagnostics', {}],
  ['obs.billing.total', {}],
  ['obs.billing.byAgent', { agentId: 'default' }],
  ['obs.billing.bySession', { sessionKey: 'default:alice:ws' }],
  ['obs.billing.byProvider', {}],
  ['obs.billing.usage24h', {}],
  ['obs.billing.spend', { window: '24h', by: 'agent' }],
  ['obs.channels.all', {}],
  ['obs.channels.get', { channelId: 'ws' }],
  ['obs.channels.stale', {}],
  ['obs.delivery.recent', {}],
  ['obs.delivery.stats', {}],
  ['obs.context.dag', {}],
  ['obs.context.pipeline', {}],
  ['obs.getCacheStats', {}],
  ['obs.trace.search', {}],
  ['obs.explain', { sessionKey: 'default:alice:ws' }],
  ['obs.fleet.health', {}],
  ['obs.audit.query', {}],
  ['obs.audit.facets', {}],
  ['obs.storage.stats', {}],
  ['obs.storage.sweep', {}],
  ['obs.reset', {}],
  ['obs.reset.table', { table: 'delivery' }],
];

describe('obs methods over JSON-RPC', () => {
  let stack: ObsStack;
  let call: (method: string, params?: unknown, caller?: Caller) => Promise<JsonRpcResponse>;
  let result: (method: string, params?: unknown) => Promise<unknown>;
  beforeEach(() => {
    stack = startObs(':memory:', { hasDurableRuns: true });
    const dispatcher = createDispatcher({ registry: createRegistry(obsMethods({ obs: stack.obs })), maxBatchSize: 50 });
    const log = createLogger({ level: 'silent' });
    call = async (method, params, caller = ADMIN) =>
      (await dispatcher.dispatch(
        { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) },
        { caller, transport: 'http', log, signal: new AbortController().signal },
      )) as JsonRpcResponse;
    result = async (method, params) => {
      const response = await call(method, params);
      if ('error' in response) throw new Error(`${method}: ${response.error.message}`);
      return response.result;
    };
  });
  afterEach(() => stack.close());

  it('declares the 20 obs methods of the catalogue, obs.storage.stats and obs.storage.sweep, and the dashboard additions', () => {
    expect(
      obsMethods({ obs: stack.obs })
        .map((method) => method.name)
        .sort(),
    ).toEqual(CALLS.map(([name]) => name).sort());
  });

  it('answers every method for a * caller, and every admin method for an admin-only caller', async () => {
    for (const [method, params] of CALLS) expect(await call(method, params), method).toHaveProperty('result');
    for (const [method, params] of CALLS.filter(([name]) => name !== 'obs.diagnostics'))
      expect(await call(method, params, ADMIN_ONLY), method).toHaveProperty('result');
  });

  it('obs.diagnostics is rpc-scoped; every other obs method refuses an rpc-only caller with -32603', async () => {
    expect(await call('obs.diagnostics', {}, RPC)).toMatchObject({ result: { events: [], counts: {} } });
    for (const [method, params] of CALLS.filter(([name]) => name !== 'obs.diagnostics')) {
      expect(await call(method, params, RPC), method).toMatchObject({
        error: { code: -32603, message: "Insufficient scope: requires 'admin'", data: { kind: 'forbidden' } },
      });
    }
  });

  it('rejects unknown params on every method with -32602 naming the param', async () => {
    for (const [method, params] of CALLS) {
      expect(await call(method, { ...params, bogus: 1 }), method).toMatchObject({
        error: { code: -32602, data: { kind: 'invalid_params', param: 'bogus' } },
      });
    }
  });

  it('requires the required params', async () => {
    expect(await call('obs.billing.byAgent', {})).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'agentId' } },
    });
    expect(await call('obs.billing.bySession', {})).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'sessionKey' } },
    });
    expect(await call('obs.channels.get', {})).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'channelId' } },
    });
    expect(await call('obs.explain', {})).toMatchObject({
      error: {
        code: -32602,
        message: expect.stringContaining('needs at least one of sessionKey, traceId or rootRunId'),
      },
    });
    expect(await call('obs.explain', { traceId: 't', depth: 'deep' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'depth' } },
    });
    expect(await call('obs.reset.table', { table: 'trajectory' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'table' } },
    });
  });

  it('obs.fleet.health: sinceHours must be positive; the default 24 is applied in the handler', async () => {
    expect(await call('obs.fleet.health', { sinceHours: 0 })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'sinceHours' } },
    });
    expect(await call('obs.fleet.health', { sinceHours: -1 })).toMatchObject({ error: { code: -32602 } });
    expect(await result('obs.fleet.health', {})).toMatchObject({
      schemaVersion: 1,
      windowHours: 24,
      autonomy: { runs: { total: 0 } },
    });
    expect(await result('obs.fleet.health', { sinceHours: 1.5 })).toMatchObject({ windowHours: 1.5 });
  });

  it('obs.explain returns the session_not_found marker for an unresolvable reference', async () => {
    expect(await result('obs.explain', { traceId: 'nope' })).toMatchObject({
      marker: 'session_not_found',
      reference: { kind: 'traceId', value: 'nope' },
    });
    expect(await result('obs.explain', { rootRunId: 'root-session-x:y:z' })).toMatchObject({
      marker: 'session_not_found',
      reference: { kind: 'rootRunId' },
    });
  });

  it('obs.trace.search clamps the limit to 1000 and reports a bad where as -32602', async () => {
    for (let n = 0; n < 1005; n += 1)
      stack.recorder.startSession({
        traceId: `t${n}`,
        sessionKey: 'default:a:ws',
        agentId: 'a',
        channel: 'ws',
        startedAt: stack.clock.now - n,
        isSynthetic: false,
      });
    expect(((await result('obs.trace.search', { limit: 5000 })) as { rows: unknown[] }).rows).toHaveLength(1000);
    expect(((await result('obs.trace.search', {})) as { rows: unknown[] }).rows).toHaveLength(200);
    expect(await call('obs.trace.search', { limit: 0 })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'limit' } },
    });
    expect(await call('obs.trace.search', { where: 'agentId = a; DROP TABLE x' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'where' } },
    });
    expect(await call('obs.trace.search', { since: 'whenever' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'since' } },
    });
  });

  it('obs.audit.query: tenant "" selects system events, the limit is clamped to 1000, rows are ts descending', async () => {
    stack.obs.audit.record({ ts: 1, kind: 'config' });
    stack.obs.audit.record({ ts: 2, kind: 'tool', tenantId: 'acme' });
    for (let n = 0; n < 1005; n += 1) stack.obs.audit.record({ ts: 10 + n, kind: 'bulk', tenantId: 'bulk' });
    expect(await result('obs.audit.query', { tenant: '' })).toEqual({
      rows: [expect.objectContaining({ ts: 1, tenantId: '' })],
      nextCursor: null,
    });
    expect(((await result('obs.audit.query', { limit: 100_000 })) as { rows: unknown[] }).rows).toHaveLength(1000);
    expect(((await result('obs.audit.query', {})) as { rows: unknown[] }).rows).toHaveLength(200);
    expect(
      ((await result('obs.audit.query', { since: 1, until: 2 })) as { rows: { ts: number }[] }).rows.map(
        (row) => row.ts,
      ),
    ).toEqual([2, 1]);
  });

  it('obs.channels.stale defaults thresholdMs to 300000', async () => {
    stack.obs.channels.touch({ channelId: 'old', channelType: 'ws' }, 'received', stack.clock.now - 300_001);
    stack.obs.channels.touch({ channelId: 'new', channelType: 'ws' }, 'received', stack.clock.now - 299_999);
    expect(await result('obs.channels.stale', {})).toEqual({ stale: [expect.objectContaining({ channelId: 'old' })] });
    expect(await result('obs.channels.get', { channelId: 'gone' })).toEqual({ channel: null });
  });

  it('obs.billing.usage24h answers 24 hours; obs.delivery.stats and obs.getCacheStats answer zeros when empty', async () => {
    expect(await result('obs.billing.usage24h')).toHaveLength(24);
    expect(await result('obs.delivery.stats')).toEqual({ total: 0, successes: 0, failures: 0, avgLatencyMs: 0 });
    expect(await result('obs.getCacheStats')).toEqual({
      hits: 0,
      misses: 0,
      hitRate: 0,
      cachedTokens: 0,
      savingsUsd: 0,
      providers: [],
    });
  });

  it('obs.reset and obs.reset.table delete rows, report counts, and emit observability:reset', async () => {
    const seen: string[] = [];
    stack.events.subscribe((event) => {
      if (event.name === 'observability:reset') seen.push(event.payload.table);
    });
    stack.recorder.usage({
      ts: 1,
      agentId: 'a',
      sessionKey: 's',
      provider: 'p',
      model: 'm',
      inputTokens: 1,
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
    });
    stack.obs.delivery.record({ channelId: 'ws', channelType: 'ws', outcome: 'success', latencyMs: 1 });
    stack.obs.diagnostics.record({ category: 'c', kind: 'k' });
    stack.obs.channels.touch({ channelId: 'ws', channelType: 'ws' }, 'sent');
    expect(await result('obs.reset')).toEqual({
      reset: true,
      rowsDeleted: { tokenUsage: 1, delivery: 1, diagnostics: 1, channels: 1 },
    });
    expect(await result('obs.billing.total')).toMatchObject({ callCount: 0 });
    stack.obs.delivery.record({ channelId: 'ws', channelType: 'ws', outcome: 'failure', latencyMs: 1 });
    expect(await result('obs.reset.table', { table: 'delivery' })).toEqual({
      reset: true,
      table: 'delivery',
      rowsDeleted: 1,
    });
    await delivered();
    expect(seen).toEqual(['all', 'delivery']);
  });
});
