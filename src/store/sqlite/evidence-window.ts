// The window reads of the SQLite EvidencePort (obs.fleet.health and obs.trace.search): turns, trajectory, usage, signals and runs.
import type { Capped, EvidencePort } from '../ports/evidence.js';
import type { SqliteDatabase } from './database.js';
import {
  INDEX_COLUMNS,
  INDEX_SELECT,
  RUN_COLUMNS,
  SIGNAL_COLUMNS,
  toIndexRow,
  toSignal,
  toTrajectory,
  TRAJECTORY_COLUMNS,
  type IndexRaw,
  type RunRaw,
  type SignalRaw,
  type TrajectoryRaw,
} from './evidence-rows.js';
import { compileTraceWhere } from './trace-where.js';
import { anyColumnEquals, buildWhere, inList, type WhereClause } from './where.js';

type WindowReads = Pick<
  EvidencePort,
  | 'searchTraces'
  | 'sessionIndexIn'
  | 'trajectoryOfTurnsIn'
  | 'usageByAgent'
  | 'healthSignalsIn'
  | 'latestHealthSignal'
  | 'runsStartedIn'
>;

export function createSqliteWindowReads(db: SqliteDatabase): WindowReads {
  const all = <T>(sql: string, where: WhereClause, ...more: (string | number)[]): T[] =>
    db.prepare<(string | number)[], T>(sql).all(...where.values, ...more);
  /** Reads at most `limit` rows; counts every match only when the limit was reached. */
  const capped = <T>(select: string, from: string, where: WhereClause, order: string, limit: number): Capped<T> => {
    const rows = all<T>(`${select} ${from} ${where.sql} ORDER BY ${order} LIMIT ?`, where, limit);
    const total =
      rows.length < limit
        ? rows.length
        : (all<{ n: number }>(`SELECT COUNT(*) AS n ${from} ${where.sql}`, where)[0]?.n ?? rows.length);
    return { rows, total };
  };
  const latestSignal = db.prepare<[string, number], SignalRaw>(
    `SELECT ${SIGNAL_COLUMNS} FROM health_signals WHERE kind = ? AND ts <= ? ORDER BY ts DESC, id DESC LIMIT 1`,
  );

  return {
    async searchTraces({ days, traceId, messageId, chatId, sinceMs, includeSynthetic, conditions, limit }) {
      const byMessage =
        messageId === undefined
          ? undefined
          : {
              // Spec rule 2: a messageId resolves to one trace first (the newest turn of the days read).
              sql: `trace_id = (SELECT trace_id FROM session_index WHERE message_id = ? AND ${inList('day', days).sql} ORDER BY started_at DESC, trace_id DESC LIMIT 1)`,
              values: [messageId, ...days],
            };
      const where = buildWhere([
        inList('day', days),
        ['trace_id', '=', traceId],
        byMessage,
        anyColumnEquals(['session_key', 'channel'], chatId),
        ['started_at', '>=', sinceMs],
        ['synthetic', '=', includeSynthetic ? undefined : 0],
        conditions === undefined || conditions.length === 0 ? undefined : compileTraceWhere(conditions),
      ]);
      return all<IndexRaw>(
        `${INDEX_SELECT} ${where.sql} ORDER BY day DESC, started_at DESC, trace_id DESC LIMIT ?`,
        where,
        limit,
      ).map(toIndexRow);
    },
    async sessionIndexIn({ sinceMs, untilMs, includeSynthetic, limit }) {
      const where = buildWhere([
        ['started_at', '>=', sinceMs],
        ['started_at', '<=', untilMs],
        ['synthetic', '=', includeSynthetic ? undefined : 0],
      ]);
      const { rows, total } = capped<IndexRaw>(
        `SELECT ${INDEX_COLUMNS}`,
        'FROM session_index',
        where,
        'started_at, trace_id',
        limit,
      );
      return { rows: rows.map(toIndexRow), total };
    },
    async trajectoryOfTurnsIn({ sinceMs, untilMs, includeSynthetic, kinds, limit }) {
      const where = buildWhere([
        ['s.started_at', '>=', sinceMs],
        ['s.started_at', '<=', untilMs],
        ['s.synthetic', '=', includeSynthetic ? undefined : 0],
        inList('t.kind', kinds),
      ]);
      const { rows, total } = capped<TrajectoryRaw>(
        `SELECT ${TRAJECTORY_COLUMNS}`,
        'FROM trajectory t JOIN session_index s ON s.trace_id = t.trace_id',
        where,
        't.id',
        limit,
      );
      return { rows: rows.map(toTrajectory), total };
    },
    async usageByAgent({ sinceMs, untilMs }) {
      const where = buildWhere([
        ['ts', '>=', sinceMs],
        ['ts', '<=', untilMs],
      ]);
      return all(
        `SELECT agent_id AS agentId, provider, model, COUNT(*) AS calls, COALESCE(SUM(input_tokens), 0) AS inputTokens,
          COALESCE(SUM(output_tokens), 0) AS outputTokens, COALESCE(SUM(cache_read_tokens), 0) AS cacheReadTokens, COALESCE(SUM(cost_usd), 0) AS costUsd
        FROM token_usage ${where.sql} GROUP BY agent_id, provider, model ORDER BY agent_id, provider, model`,
        where,
      );
    },
    async healthSignalsIn({ sinceMs, untilMs, excludeKind, limit }) {
      const where = buildWhere([
        ['ts', '>=', sinceMs],
        ['ts', '<=', untilMs],
        ['kind', '!=', excludeKind],
      ]);
      const { rows, total } = capped<SignalRaw>(
        `SELECT ${SIGNAL_COLUMNS}`,
        'FROM health_signals',
        where,
        'ts, id',
        limit,
      );
      return { rows: rows.map(toSignal), total };
    },
    async latestHealthSignal({ kind, atOrBeforeMs }) {
      const row = latestSignal.get(kind, atOrBeforeMs);
      return row === undefined ? undefined : toSignal(row);
    },
    async runsStartedIn({ sinceMs, untilMs, limit }) {
      const where = buildWhere([
        ['started_at', '>=', sinceMs],
        ['started_at', '<=', untilMs],
      ]);
      return capped<RunRaw>(`SELECT ${RUN_COLUMNS}`, 'FROM runs', where, 'started_at, run_id', limit);
    },
  };
}
