// Delivery traces: one row per reply delivered (or not) to a channel, recorded by the turn that sent it; recent list and totals.
import type { SqliteDatabase } from '../store/index.js';
import type { BatchWriter } from './batch-writer.js';

/** Decided here (spec: "DeliveryTrace field list: not shown"). */
export interface DeliveryTrace {
  id: number;
  ts: number;
  channelId: string;
  channelType: string;
  sessionKey: string | null;
  traceId: string | null;
  outcome: 'success' | 'failure';
  /** From the message being received to the reply being sent. */
  latencyMs: number;
  errorKind: string | null;
}

export type DeliveryInput = Omit<DeliveryTrace, 'id' | 'ts' | 'sessionKey' | 'traceId' | 'errorKind'> & {
  ts?: number;
  sessionKey?: string;
  traceId?: string;
  errorKind?: string;
};

export const DELIVERY_DEFAULT_LIMIT = 100;
export const DELIVERY_MAX_LIMIT = 1000;

export interface DeliveryStats {
  total: number;
  successes: number;
  failures: number;
  avgLatencyMs: number;
}

/** What the turn knows when it finishes sending its reply. */
export interface DeliveryReply {
  channelId: string;
  /** Defaults to the channel id (a session key's channel names both). */
  channelType?: string;
  sessionKey: string;
  traceId: string;
  /** When the message being answered was received (epoch ms); the latency runs from here to now. */
  receivedAt: number;
  delivered?: boolean;
  errorKind?: string;
}

/** The one call the turn makes when its reply is sent. */
export interface DeliveryRecorder {
  replied(reply: DeliveryReply): void;
}

export interface DeliveryTracer extends DeliveryRecorder {
  record(trace: DeliveryInput): void;
  /** Newest first. */
  recent(filter: { sinceMs?: number; limit?: number; channelId?: string }): DeliveryTrace[];
  stats(): DeliveryStats;
  reset(): number;
}

export interface DeliveryTracerDeps {
  db: SqliteDatabase;
  writer: BatchWriter;
  now: () => number;
}

interface DeliveryRow {
  id: number;
  ts: number;
  channel_id: string;
  channel_type: string;
  session_key: string | null;
  trace_id: string | null;
  outcome: string;
  latency_ms: number;
  error_kind: string | null;
}

const toTrace = (row: DeliveryRow): DeliveryTrace => ({
  id: row.id, ts: row.ts, channelId: row.channel_id, channelType: row.channel_type, sessionKey: row.session_key, traceId: row.trace_id,
  outcome: row.outcome === 'failure' ? 'failure' : 'success', latencyMs: row.latency_ms, errorKind: row.error_kind,
});

export function createDeliveryTracer({ db, writer, now }: DeliveryTracerDeps): DeliveryTracer {
  const insert = db.prepare(
    'INSERT INTO delivery_traces (ts, channel_id, channel_type, session_key, trace_id, outcome, latency_ms, error_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const statsQuery = db.prepare<[], { total: number; successes: number | null; avg_latency: number | null }>(
    "SELECT COUNT(*) AS total, SUM(outcome = 'success') AS successes, AVG(latency_ms) AS avg_latency FROM delivery_traces");
  const deleteAll = db.prepare('DELETE FROM delivery_traces');

  function record(trace: DeliveryInput): void {
    const row = [trace.ts ?? now(), trace.channelId, trace.channelType, trace.sessionKey ?? null, trace.traceId ?? null, trace.outcome,
      Math.max(0, Math.round(trace.latencyMs)), trace.errorKind ?? null] as const;
    writer.enqueue(() => insert.run(...row));
  }

  function replied(reply: DeliveryReply): void {
    const ts = now();
    const isFailure = reply.delivered === false || reply.errorKind !== undefined;
    record({
      ts, channelId: reply.channelId.slice(0, 256), channelType: (reply.channelType ?? reply.channelId).slice(0, 64), sessionKey: reply.sessionKey,
      traceId: reply.traceId, outcome: isFailure ? 'failure' : 'success', latencyMs: ts - reply.receivedAt,
      ...(reply.errorKind !== undefined ? { errorKind: reply.errorKind.slice(0, 64) } : isFailure ? { errorKind: 'undelivered' } : {}),
    });
  }

  return {
    record,
    replied,
    recent({ sinceMs, limit = DELIVERY_DEFAULT_LIMIT, channelId }) {
      writer.flush();
      const clauses: string[] = [];
      const values: (string | number)[] = [];
      if (sinceMs !== undefined) {
        clauses.push('ts >= ?');
        values.push(sinceMs);
      }
      if (channelId !== undefined) {
        clauses.push('channel_id = ?');
        values.push(channelId);
      }
      const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
      return db.prepare<(string | number)[], DeliveryRow>(`SELECT * FROM delivery_traces ${where} ORDER BY ts DESC, id DESC LIMIT ?`)
        .all(...values, Math.min(limit, DELIVERY_MAX_LIMIT)).map(toTrace);
    },
    stats() {
      writer.flush();
      const row = statsQuery.get();
      const total = row?.total ?? 0;
      const successes = row?.successes ?? 0;
      return { total, successes, failures: total - successes, avgLatencyMs: Math.round(row?.avg_latency ?? 0) };
    },
    reset() {
      writer.flush();
      return deleteAll.run().changes;
    },
  };
}
