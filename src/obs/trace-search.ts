// obs.trace.search: the last two days of session-index rows, filtered, newest first within each day.
import type { SqliteDatabase } from '../store/index.js';
import type { SessionIndexEvidence } from './evidence/records.js';
import { compileWhere, parseSince } from './where-filter.js';

/** Spec Limits: limit default 200, maximum 1000 (larger values are clamped); lookback two days. */
export const TRACE_SEARCH_DEFAULT_LIMIT = 200;
export const TRACE_SEARCH_MAX_LIMIT = 1000;
export const TRACE_LOOKBACK_DAYS = 2;

export interface TraceSearchParams {
  messageId?: string;
  traceId?: string;
  /** A session key, or a channel name. */
  chatId?: string;
  since?: string;
  where?: string;
  limit?: number;
  includeSynthetic?: boolean;
}

/** A session-index row as obs.trace.search returns it (the evidence row, with the wire name `synthetic`). */
export type TraceRow = Omit<SessionIndexEvidence, 'isSynthetic'> & { synthetic: boolean };

export interface TraceSearchDeps {
  db: SqliteDatabase;
  flush: () => Promise<void>;
  now: () => number;
}

const DAY_MS = 86_400_000;

/** The UTC days the lookback reads, newest first (session_index.day values). */
export function lookbackDays(nowMs: number): string[] {
  return Array.from({ length: TRACE_LOOKBACK_DAYS }, (_, back) => new Date(nowMs - back * DAY_MS).toISOString().slice(0, 10));
}

export function createTraceSearch({ db, flush, now }: TraceSearchDeps): { search(params: TraceSearchParams): Promise<{ rows: TraceRow[] }> } {
  const SELECT = `SELECT trace_id AS traceId, session_key AS sessionKey, agent_id AS agentId, channel, message_id AS messageId,
    root_run_id AS rootRunId, end_reason AS endReason, degraded, started_at AS startedAt, ended_at AS endedAt, day, synthetic FROM session_index`;
  type Raw = Omit<TraceRow, 'degraded' | 'synthetic'> & { degraded: number; synthetic: number };

  return {
    async search(params) {
      const nowMs = now();
      const days = lookbackDays(nowMs);
      // Validate before any work (a malformed filter is the caller's error, not an empty result).
      const where = params.where === undefined ? undefined : compileWhere(params.where);
      const sinceMs = params.since === undefined ? undefined : parseSince(params.since, nowMs);
      await flush();
      const clauses = [`day IN (${days.map(() => '?').join(', ')})`];
      const values: (string | number)[] = [...days];
      let traceId = params.traceId;
      if (params.messageId !== undefined) {
        // Spec rule 2: a messageId is resolved to its traceId first.
        const resolved = db.prepare<(string | number)[], { trace_id: string }>(
          `SELECT trace_id FROM session_index WHERE message_id = ? AND ${clauses[0]} ORDER BY started_at DESC, trace_id DESC LIMIT 1`).get(params.messageId, ...days);
        if (resolved === undefined || (traceId !== undefined && traceId !== resolved.trace_id)) return { rows: [] };
        traceId = resolved.trace_id;
      }
      if (traceId !== undefined) {
        clauses.push('trace_id = ?');
        values.push(traceId);
      }
      if (params.chatId !== undefined) {
        clauses.push('(session_key = ? OR channel = ?)');
        values.push(params.chatId, params.chatId);
      }
      if (sinceMs !== undefined) {
        clauses.push('started_at >= ?');
        values.push(sinceMs);
      }
      if (params.includeSynthetic !== true) clauses.push('synthetic = 0');
      if (where !== undefined) {
        clauses.push(`(${where.sql})`);
        values.push(...where.values);
      }
      const limit = Math.min(params.limit ?? TRACE_SEARCH_DEFAULT_LIMIT, TRACE_SEARCH_MAX_LIMIT);
      const rows = db.prepare<(string | number)[], Raw>(`${SELECT} WHERE ${clauses.join(' AND ')} ORDER BY day DESC, started_at DESC, trace_id DESC LIMIT ?`)
        .all(...values, limit);
      return { rows: rows.map((row) => ({ ...row, degraded: row.degraded === 1, synthetic: row.synthetic === 1 })) };
    },
  };
}
