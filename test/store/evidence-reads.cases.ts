// EvidencePort conformance for the report reads: lookups by trace and root, session turns, trace search filters and window reads.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  EvidencePort,
  EvidenceRun,
  EvidenceWrite,
  HealthSignalRow,
  SessionIndexStart,
} from '../../src/store/index.js';

export interface EvidenceReadsHandle {
  port: EvidencePort;
  /** Durable runs and health signals are written by other ports; the suite seeds them through these. */
  addRuns(runs: readonly EvidenceRun[]): Promise<void>;
  addSignals(rows: readonly HealthSignalRow[]): Promise<void>;
  close(): Promise<void>;
}

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 15, 12);

const start = (
  traceId: string,
  sessionKey: string,
  startedAt: number,
  extra: Partial<SessionIndexStart> = {},
): EvidenceWrite => ({
  type: 'session_start',
  entry: { traceId, sessionKey, agentId: 'default', channel: 'ws', startedAt, isSynthetic: false, ...extra },
});
const step = (
  sessionKey: string,
  traceId: string,
  kind: string,
  ts: number,
  data: Record<string, unknown> = {},
): EvidenceWrite => ({ type: 'trajectory', record: { sessionKey, traceId, kind, ts, data } });
const usage = (ts: number, agentId: string, model: string, inputTokens: number, costUsd: number): EvidenceWrite => ({
  type: 'usage',
  record: {
    ts,
    agentId,
    sessionKey: 's',
    provider: 'p',
    model,
    inputTokens,
    outputTokens: 1,
    cacheReadTokens: 2,
    cacheWriteTokens: 0,
    costUsd,
  },
});
const run = (
  runId: string,
  rootRunId: string,
  sessionKey: string,
  parentKey: string | null,
  startedAt: number,
): EvidenceRun => ({
  runId,
  rootRunId,
  parentKey,
  sessionKey,
  agentId: 'default',
  status: 'completed',
  startedAt,
  costUsd: null,
});
const signal = (ts: number, kind: string): HealthSignalRow => ({
  ts,
  kind,
  agentId: null,
  rootRunId: null,
  severity: 'info',
  data: JSON.stringify({ ts }),
});

export function evidenceReadsCases(name: string, open: () => Promise<EvidenceReadsHandle>): void {
  describe(`EvidencePort report reads: ${name}`, () => {
    let handle: EvidenceReadsHandle;
    let port: EvidencePort;
    beforeEach(async () => {
      handle = await open();
      port = handle.port;
    });
    afterEach(async () => {
      await handle.close();
    });

    it('resolves a session by trace (index first, then trajectory) and by root run (index first, then the run table)', async () => {
      await port.append([start('t1', 'a', T0, { rootRunId: 'root-1' }), step('orphan', 't-loose', 'turn_start', T0)]);
      await handle.addRuns([run('r9', 'r9', 'sub', 'a', T0)]);
      expect(await port.sessionKeyOfTrace('t1')).toBe('a');
      expect(await port.sessionKeyOfTrace('t-loose')).toBe('orphan');
      expect(await port.sessionKeyOfTrace('none')).toBeUndefined();
      expect(await port.sessionKeyOfRoot('root-1')).toBe('a');
      expect(await port.sessionKeyOfRoot('r9')).toBe('sub');
      expect(await port.sessionKeyOfRoot('none')).toBeUndefined();
    });

    it("lists a session's turns oldest first, counts its trajectory and keeps only the newest records when asked", async () => {
      await port.append([
        start('t2', 'a', T0 + 2, { messageId: 'm' }),
        start('t1', 'a', T0 + 1, { isSynthetic: true }),
        start('x', 'b', T0),
      ]);
      await port.append([
        { type: 'session_end', end: { traceId: 't2', endReason: 'timeout', degraded: true, endedAt: T0 + 9 } },
      ]);
      await port.append([1, 2, 3, 4].map((n) => step('a', 't2', `k${n}`, n)));
      expect(await port.sessionIndexOf('a')).toEqual([
        {
          traceId: 't1',
          sessionKey: 'a',
          agentId: 'default',
          channel: 'ws',
          messageId: null,
          rootRunId: null,
          endReason: null,
          degraded: false,
          startedAt: T0 + 1,
          endedAt: null,
          day: '2026-01-15',
          isSynthetic: true,
        },
        {
          traceId: 't2',
          sessionKey: 'a',
          agentId: 'default',
          channel: 'ws',
          messageId: 'm',
          rootRunId: null,
          endReason: 'timeout',
          degraded: true,
          startedAt: T0 + 2,
          endedAt: T0 + 9,
          day: '2026-01-15',
          isSynthetic: false,
        },
      ]);
      expect(await port.sessionIndexOf('nobody')).toEqual([]);
      expect(await port.trajectoryCountOf('a')).toBe(4);
      expect(await port.trajectoryCountOf('nobody')).toBe(0);
      expect((await port.trajectoryOf('a', { newest: 2 })).map((record) => [record.seq, record.kind])).toEqual([
        [3, 'k3'],
        [4, 'k4'],
      ]);
    });

    it('finds the root run of a session (ran or spawned) and the runs of a root, oldest first and limited', async () => {
      await handle.addRuns([
        run('c2', 'root', 'child-2', 'parent', T0 + 2),
        run('root', 'root', 'parent', null, T0),
        run('c1', 'root', 'child-1', 'parent', T0 + 1),
        run('other', 'other', 'x', null, T0),
      ]);
      expect(await port.rootRunOfSession('parent')).toBe('root');
      expect(await port.rootRunOfSession('child-2')).toBe('root');
      expect(await port.rootRunOfSession('nobody')).toBeUndefined();
      expect((await port.runsOfRoot('root', 10)).map((row) => row.runId)).toEqual(['root', 'c1', 'c2']);
      expect(await port.runsOfRoot('root', 1)).toEqual([run('root', 'root', 'parent', null, T0)]);
    });

    it('reads the newest records of one kind with their agent, oldest first, optionally of one agent', async () => {
      await port.append([start('ta', 'a', T0), start('tb', 'b', T0, { agentId: 'helper' })]);
      await port.append([
        step('a', 'ta', 'budget', 1, { n: 1 }),
        step('b', 'tb', 'budget', 2, { n: 2 }),
        step('a', 'ta', 'other', 3),
        step('a', 'ta', 'budget', 4, { n: 4 }),
        step('z', 'unindexed', 'budget', 5),
      ]);
      expect(
        (await port.trajectoryOfKind({ kind: 'budget', newest: 10 })).map((record) => [record.agentId, record.data.n]),
      ).toEqual([
        ['default', 1],
        ['helper', 2],
        ['default', 4],
      ]);
      expect((await port.trajectoryOfKind({ kind: 'budget', newest: 2 })).map((record) => record.ts)).toEqual([2, 4]);
      expect(
        (await port.trajectoryOfKind({ kind: 'budget', agentId: 'helper', newest: 10 })).map(
          (record) => record.sessionKey,
        ),
      ).toEqual(['b']);
    });

    it('searches traces by day, trace, message, chat, start time, synthetic flag and conditions, newest first', async () => {
      const today = '2026-01-15';
      await port.append([
        start('early', 'default:a:ws', T0 - 1000, { messageId: 'm1' }),
        start('late', 'default:b:ws', T0, { agentId: 'helper', channel: 'web' }),
        start('again', 'default:c:ws', T0 + 5, { messageId: 'm1' }),
        start('probe', 'default:p:ws', T0 + 1, { isSynthetic: true }),
        start('old', 'default:a:ws', T0 - 3 * DAY),
        start('yesterday', 'default:a:ws', T0 - DAY),
      ]);
      await port.append([
        { type: 'session_end', end: { traceId: 'early', endReason: 'timeout', degraded: true, endedAt: T0 } },
      ]);
      const search = async (filter: Partial<Parameters<EvidencePort['searchTraces']>[0]>) =>
        (await port.searchTraces({ days: [today, '2026-01-14'], includeSynthetic: false, limit: 100, ...filter })).map(
          (row) => row.traceId,
        );
      expect(await search({})).toEqual(['again', 'late', 'early', 'yesterday']);
      expect(await search({ includeSynthetic: true })).toEqual(['again', 'probe', 'late', 'early', 'yesterday']);
      expect(await search({ days: [today], limit: 2 })).toEqual(['again', 'late']);
      expect(await search({ traceId: 'late' })).toEqual(['late']);
      expect(await search({ messageId: 'm1' })).toEqual(['again']);
      expect(await search({ messageId: 'm1', traceId: 'early' })).toEqual([]);
      expect(await search({ messageId: 'nope' })).toEqual([]);
      expect(await search({ chatId: 'web' })).toEqual(['late']);
      expect(await search({ chatId: 'default:a:ws' })).toEqual(['early', 'yesterday']);
      expect(await search({ sinceMs: T0 })).toEqual(['again', 'late']);
      expect(await search({ conditions: [{ field: 'agentId', op: '=', value: 'helper' }] })).toEqual(['late']);
      expect(
        await search({
          conditions: [
            { field: 'endReason', op: '!=', value: 'timeout' },
            { field: 'sessionKey', op: '~', value: ':a:' },
          ],
        }),
      ).toEqual(['yesterday']);
      expect(await search({ conditions: [{ field: 'endReason', op: '!=', value: null }] })).toEqual(['early']);
      expect(await search({ conditions: [{ field: 'degraded', op: '=', value: true }] })).toEqual(['early']);
      expect(
        await search({ includeSynthetic: true, conditions: [{ field: 'synthetic', op: '!=', value: false }] }),
      ).toEqual(['probe']);
    });

    it('reads a window: turns, trajectory of chosen kinds, usage per agent, signals and runs, with totals past the limit', async () => {
      await port.append([
        start('in1', 'a', T0 - 10),
        start('in2', 'b', T0 - 5),
        start('probe', 'p', T0 - 4, { isSynthetic: true }),
        start('out', 'o', T0 - DAY),
        step('a', 'in1', 'tool_call', 1),
        step('a', 'in1', 'model_call', 2),
        step('b', 'in2', 'turn_end', 3),
        step('p', 'probe', 'tool_call', 4),
        step('o', 'out', 'tool_call', 5),
        usage(T0 - 1, 'default', 'm', 10, 0.5),
        usage(T0 - 2, 'default', 'm', 5, 0.25),
        usage(T0 - 3, 'helper', 'm', 1, 0),
        usage(T0 - DAY, 'default', 'm', 100, 9),
      ]);
      await handle.addSignals([
        signal(T0 - 3, 'breaker'),
        signal(T0 - 2, 'config_posture'),
        signal(T0 - 1, 'breaker'),
        signal(T0 - DAY, 'breaker'),
        signal(T0 + 1, 'config_posture'),
      ]);
      await handle.addRuns([
        run('r1', 'r1', 'a', null, T0 - 3),
        run('r2', 'r2', 'b', null, T0 - 2),
        run('r-old', 'r-old', 'o', null, T0 - DAY),
      ]);
      const window = { sinceMs: T0 - 100, untilMs: T0 };

      const turns = await port.sessionIndexIn({ ...window, includeSynthetic: false, limit: 10 });
      expect({ ids: turns.rows.map((row) => row.traceId), total: turns.total }).toEqual({
        ids: ['in1', 'in2'],
        total: 2,
      });
      expect(
        (await port.sessionIndexIn({ ...window, includeSynthetic: true, limit: 10 })).rows.map((row) => row.traceId),
      ).toEqual(['in1', 'in2', 'probe']);
      const firstTurn = await port.sessionIndexIn({ ...window, includeSynthetic: false, limit: 1 });
      expect({ ids: firstTurn.rows.map((row) => row.traceId), total: firstTurn.total }).toEqual({
        ids: ['in1'],
        total: 2,
      });

      const records = await port.trajectoryOfTurnsIn({
        ...window,
        includeSynthetic: false,
        kinds: ['tool_call', 'turn_end'],
        limit: 10,
      });
      expect({ kinds: records.rows.map((row) => `${row.traceId}/${row.kind}`), total: records.total }).toEqual({
        kinds: ['in1/tool_call', 'in2/turn_end'],
        total: 2,
      });
      expect(
        (
          await port.trajectoryOfTurnsIn({ ...window, includeSynthetic: true, kinds: ['tool_call'], limit: 10 })
        ).rows.map((row) => row.traceId),
      ).toEqual(['in1', 'probe']);
      expect(
        await port.trajectoryOfTurnsIn({
          ...window,
          includeSynthetic: false,
          kinds: ['tool_call', 'turn_end'],
          limit: 1,
        }),
      ).toMatchObject({ rows: [{ traceId: 'in1' }], total: 2 });

      expect(await port.usageByAgent(window)).toEqual([
        {
          agentId: 'default',
          provider: 'p',
          model: 'm',
          calls: 2,
          inputTokens: 15,
          outputTokens: 2,
          cacheReadTokens: 4,
          costUsd: 0.75,
        },
        {
          agentId: 'helper',
          provider: 'p',
          model: 'm',
          calls: 1,
          inputTokens: 1,
          outputTokens: 1,
          cacheReadTokens: 2,
          costUsd: 0,
        },
      ]);

      const signals = await port.healthSignalsIn({ ...window, excludeKind: 'config_posture', limit: 10 });
      expect({ rows: signals.rows.map((row) => [row.kind, row.data.ts]), total: signals.total }).toEqual({
        rows: [
          ['breaker', T0 - 3],
          ['breaker', T0 - 1],
        ],
        total: 2,
      });
      expect((await port.healthSignalsIn({ ...window, limit: 10 })).rows.map((row) => row.kind)).toEqual([
        'breaker',
        'config_posture',
        'breaker',
      ]);
      expect((await port.healthSignalsIn({ ...window, limit: 1 })).total).toBe(3);
      expect(await port.latestHealthSignal({ kind: 'config_posture', atOrBeforeMs: T0 })).toMatchObject({
        kind: 'config_posture',
        ts: T0 - 2,
        agentId: null,
        data: { ts: T0 - 2 },
      });
      expect(await port.latestHealthSignal({ kind: 'config_posture', atOrBeforeMs: T0 - 50 })).toBeUndefined();

      const runs = await port.runsStartedIn({ ...window, limit: 10 });
      expect({ ids: runs.rows.map((row) => row.runId), total: runs.total }).toEqual({ ids: ['r1', 'r2'], total: 2 });
      expect(await port.runsStartedIn({ ...window, limit: 1 })).toEqual({
        rows: [run('r1', 'r1', 'a', null, T0 - 3)],
        total: 2,
      });
    });
  });
}
