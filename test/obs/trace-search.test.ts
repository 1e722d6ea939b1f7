// obs.trace.search: two days of session-index rows, messageId first, synthetic exclusion, where/since filters, limits.
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors.js';
import { TRACE_SEARCH_MAX_LIMIT } from '../../src/obs/trace-search.js';
import { parseSince, parseWhere } from '../../src/obs/where-filter.js';
import { compileTraceWhere } from '../../src/store/shared/index.js';
import { openDatabase, sqliteStoreDb } from '../../src/store/sqlite/index.js';
import { startObs, type ObsStack } from './support.js';

const HOUR = 3_600_000;
/** The `where` text as the store binds it on SQLite: parsed by obs, compiled by the store. */
const compileWhere = (text: string) =>
  compileTraceWhere(sqliteStoreDb(openDatabase({ path: ':memory:' })), parseWhere(text));

describe('obs.trace.search', () => {
  let stack: ObsStack | undefined;
  afterEach(() => stack?.close());

  function seed(s: ObsStack) {
    const at = (hoursAgo: number) => s.clock.now - hoursAgo * HOUR;
    const start = (
      traceId: string,
      startedAt: number,
      extra: Partial<{ messageId: string; isSynthetic: boolean; agentId: string; sessionKey: string }> = {},
    ) =>
      s.recorder.startSession({
        traceId,
        sessionKey: extra.sessionKey ?? `default:${traceId}:ws`,
        agentId: extra.agentId ?? 'default',
        channel: 'ws',
        startedAt,
        isSynthetic: extra.isSynthetic ?? false,
        ...(extra.messageId === undefined ? {} : { messageId: extra.messageId }),
      });
    start('today-early', at(11));
    start('today-late', at(1), { messageId: 'm-1', agentId: 'helper' });
    start('yesterday', at(20));
    start('three-days', at(72));
    start('probe', at(2), { isSynthetic: true });
    s.recorder.endSession('today-early', { endReason: 'timeout', degraded: true, endedAt: at(10) });
    s.recorder.endSession('yesterday', { endReason: 'completed', degraded: false, endedAt: at(19) });
  }

  it('reads the last two days only, newest first within each day, synthetic excluded by default', async () => {
    stack = startObs();
    seed(stack);
    expect((await stack.obs.traceSearch({})).rows.map((row) => row.traceId)).toEqual([
      'today-late',
      'today-early',
      'yesterday',
    ]);
    expect((await stack.obs.traceSearch({ includeSynthetic: true })).rows.map((row) => row.traceId)).toEqual([
      'today-late',
      'probe',
      'today-early',
      'yesterday',
    ]);
    expect((await stack.obs.traceSearch({ traceId: 'yesterday' })).rows[0]).toEqual({
      traceId: 'yesterday',
      sessionKey: 'default:yesterday:ws',
      agentId: 'default',
      channel: 'ws',
      messageId: null,
      rootRunId: null,
      endReason: 'completed',
      degraded: false,
      startedAt: stack.clock.now - 20 * HOUR,
      endedAt: stack.clock.now - 19 * HOUR,
      day: '2026-01-14',
      synthetic: false,
    });
  });

  it('resolves a messageId to its traceId first', async () => {
    stack = startObs();
    seed(stack);
    expect((await stack.obs.traceSearch({ messageId: 'm-1' })).rows.map((row) => row.traceId)).toEqual(['today-late']);
    expect((await stack.obs.traceSearch({ messageId: 'm-404' })).rows).toEqual([]);
    expect((await stack.obs.traceSearch({ messageId: 'm-1', traceId: 'yesterday' })).rows).toEqual([]);
  });

  it('filters with where, since and chatId', async () => {
    stack = startObs();
    seed(stack);
    const ids = async (params: Parameters<ObsStack['obs']['traceSearch']>[0]) =>
      (await stack?.obs.traceSearch(params))?.rows.map((row) => row.traceId);
    expect(await ids({ where: 'degraded = true' })).toEqual(['today-early']);
    expect(await ids({ where: 'agentId = helper' })).toEqual(['today-late']);
    expect(await ids({ where: 'endReason = null' })).toEqual(['today-late']);
    expect(await ids({ where: "endReason != timeout and sessionKey ~ 'day'" })).toEqual(['today-late', 'yesterday']);
    expect(await ids({ since: '12h' })).toEqual(['today-late', 'today-early']);
    expect(await ids({ chatId: 'default:yesterday:ws' })).toEqual(['yesterday']);
  });

  it(`defaults to 200 rows and clamps the limit to ${TRACE_SEARCH_MAX_LIMIT}`, async () => {
    stack = startObs();
    const s = stack;
    for (let n = 0; n < 1005; n += 1)
      s.recorder.startSession({
        traceId: `t${n}`,
        sessionKey: 'default:a:ws',
        agentId: 'a',
        channel: 'ws',
        startedAt: s.clock.now - n,
        isSynthetic: false,
      });
    expect((await s.obs.traceSearch({})).rows).toHaveLength(200);
    expect((await s.obs.traceSearch({ limit: 5000 })).rows).toHaveLength(TRACE_SEARCH_MAX_LIMIT);
  });
});

describe('obs.trace.search where syntax', () => {
  it('compiles clauses to bound parameters only', async () => {
    expect(compileWhere("agentId = default AND channel != 'web chat' and traceId ~ abc")).toEqual({
      sql: '("agent_id" = ? and ("channel" is null or "channel" <> ?) and instr("trace_id", ?) > 0)',
      values: ['default', 'web chat', 'abc'],
    });
    expect(compileWhere('degraded != true and rootRunId != null')).toEqual({
      sql: '("degraded" <> ? and "root_run_id" is not null)',
      values: [1],
    });
  });

  it('rejects unknown fields, raw SQL and malformed input with invalid_params naming where', async () => {
    for (const text of [
      '1=1',
      'agentId = x; DROP TABLE session_index',
      'agentId = x or channel = y',
      'password = x',
      'degraded ~ true',
      'degraded = maybe',
      'agentId',
      '',
      'channel ~ null',
    ]) {
      expect(() => compileWhere(text), text).toThrow(GatewayError);
    }
    try {
      compileWhere('bogus = 1');
    } catch (error) {
      expect(error).toMatchObject({ kind: 'invalid_params', details: { param: 'where' } });
    }
    const many = Array.from({ length: 9 }, () => 'agentId = a').join(' and ');
    expect(() => compileWhere(many)).toThrow(/more than 8 clauses/);
  });

  it('parses since as a duration, an ISO time or epoch ms', async () => {
    expect(parseSince('2h', 10 * 3_600_000)).toBe(8 * 3_600_000);
    expect(parseSince('90m', 100 * 60_000)).toBe(10 * 60_000);
    expect(parseSince('2026-01-15T00:00:00Z', 0)).toBe(Date.UTC(2026, 0, 15));
    expect(parseSince('1700000000000', 0)).toBe(1_700_000_000_000);
    expect(() => parseSince('yesterday-ish', 0)).toThrow(/'since' must be/);
  });
});
