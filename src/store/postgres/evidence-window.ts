// The window reads of the PostgreSQL EvidencePort (obs.fleet.health and obs.trace.search): turns, trajectory, usage, signals and runs.
import type { QueryResultRow } from 'pg';
import type { AgentUsageGroup, Capped, EvidencePort, EvidenceRun, SessionIndexRow } from '../ports/evidence.js';
import {
  INDEX_COLUMNS,
  INDEX_SELECT,
  RUN_COLUMNS,
  SIGNAL_COLUMNS,
  toSignal,
  toTrajectory,
  TRAJECTORY_COLUMNS,
  type SignalRaw,
  type TrajectoryRaw,
} from './evidence-rows.js';
import type { Queryable } from './pool.js';
import { compileTraceWhere } from './trace-where.js';
import { buildWhere, Params } from './where.js';

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

export function createPostgresWindowReads(db: Queryable): WindowReads {
  /** Reads at most `limit` rows; counts every match only when the limit was reached. */
  const capped = async <T extends QueryResultRow>(
    select: string,
    from: string,
    params: Params,
    where: string,
    order: string,
    limit: number,
  ): Promise<Capped<T>> => {
    const countValues = [...params.values];
    const rows = (
      await db.query<T>(`${select} ${from} ${where} ORDER BY ${order} LIMIT ${params.add(limit)}`, params.values)
    ).rows;
    if (rows.length < limit) return { rows, total: rows.length };
    const count = await db.query<{ n: number }>(`SELECT COUNT(*) AS n ${from} ${where}`, countValues);
    return { rows, total: count.rows[0]?.n ?? rows.length };
  };

  return {
    async searchTraces({ days, traceId, messageId, chatId, sinceMs, includeSynthetic, conditions, limit }, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const dayList = params.add(days);
      // Spec rule 2: a messageId resolves to one trace first (the newest turn of the days read).
      const byMessage =
        messageId === undefined
          ? undefined
          : `trace_id = (SELECT trace_id FROM session_index WHERE message_id = ${params.add(messageId)} AND day = ANY(${dayList}::text[])
             ORDER BY started_at DESC, trace_id DESC LIMIT 1)`;
      const chat = chatId === undefined ? undefined : params.add(chatId);
      const byChat = chat === undefined ? undefined : `session_key = ${chat} OR channel = ${chat}`;
      const where = buildWhere(params, [
        `day = ANY(${dayList}::text[])`,
        ['trace_id', '=', traceId],
        byMessage,
        byChat,
        ['started_at', '>=', sinceMs],
        includeSynthetic ? undefined : 'NOT synthetic',
        conditions === undefined || conditions.length === 0 ? undefined : compileTraceWhere(params, conditions),
      ]);
      const result = await db.query<SessionIndexRow>(
        `${INDEX_SELECT} ${where} ORDER BY day DESC, started_at DESC, trace_id DESC LIMIT ${params.add(limit)}`,
        params.values,
      );
      return result.rows;
    },
    async sessionIndexIn({ sinceMs, untilMs, includeSynthetic, limit }, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const where = buildWhere(params, [
        ['started_at', '>=', sinceMs],
        ['started_at', '<=', untilMs],
        includeSynthetic ? undefined : 'NOT synthetic',
      ]);
      return capped<SessionIndexRow>(
        `SELECT ${INDEX_COLUMNS}`,
        'FROM session_index',
        params,
        where,
        'started_at, trace_id',
        limit,
      );
    },
    async trajectoryOfTurnsIn({ sinceMs, untilMs, includeSynthetic, kinds, limit }, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const where = buildWhere(params, [
        ['s.started_at', '>=', sinceMs],
        ['s.started_at', '<=', untilMs],
        includeSynthetic ? undefined : 'NOT s.synthetic',
        `t.kind = ANY(${params.add(kinds)}::text[])`,
      ]);
      const { rows, total } = await capped<TrajectoryRaw>(
        `SELECT ${TRAJECTORY_COLUMNS}`,
        'FROM trajectory t JOIN session_index s ON s.trace_id = t.trace_id',
        params,
        where,
        't.id',
        limit,
      );
      return { rows: rows.map(toTrajectory), total };
    },
    async usageByAgent({ sinceMs, untilMs }, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const where = buildWhere(params, [
        ['ts', '>=', sinceMs],
        ['ts', '<=', untilMs],
      ]);
      const result = await db.query<AgentUsageGroup>(
        `SELECT agent_id AS "agentId", provider, model, COUNT(*) AS calls, COALESCE(SUM(input_tokens), 0) AS "inputTokens",
           COALESCE(SUM(output_tokens), 0) AS "outputTokens", COALESCE(SUM(cache_read_tokens), 0) AS "cacheReadTokens", COALESCE(SUM(cost_usd), 0) AS "costUsd"
         FROM token_usage ${where} GROUP BY agent_id, provider, model ORDER BY agent_id, provider, model`,
        params.values,
      );
      return result.rows;
    },
    async healthSignalsIn({ sinceMs, untilMs, excludeKind, limit }, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const where = buildWhere(params, [
        ['ts', '>=', sinceMs],
        ['ts', '<=', untilMs],
        ['kind', '!=', excludeKind],
      ]);
      const { rows, total } = await capped<SignalRaw>(
        `SELECT ${SIGNAL_COLUMNS}`,
        'FROM health_signals',
        params,
        where,
        'ts, id',
        limit,
      );
      return { rows: rows.map(toSignal), total };
    },
    async latestHealthSignal({ kind, atOrBeforeMs }, signal) {
      signal?.throwIfAborted();
      const row = (
        await db.query<SignalRaw>(
          `SELECT ${SIGNAL_COLUMNS} FROM health_signals WHERE kind = $1 AND ts <= $2 ORDER BY ts DESC, id DESC LIMIT 1`,
          [kind, atOrBeforeMs],
        )
      ).rows[0];
      return row === undefined ? undefined : toSignal(row);
    },
    async runsStartedIn({ sinceMs, untilMs, limit }, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const where = buildWhere(params, [
        ['started_at', '>=', sinceMs],
        ['started_at', '<=', untilMs],
      ]);
      return capped<EvidenceRun>(`SELECT ${RUN_COLUMNS}`, 'FROM runs', params, where, 'started_at, run_id', limit);
    },
  };
}
