// Delivery traces: one row per reply delivered (or not) to a channel, with its latency; recent list and totals.
import type { SqliteDatabase } from '../store/sqlite/index.js';
import type { BatchWriter } from './batch-writer.js';
import { channelOfEvent } from './channels.js';
import type { EventBus } from './event-bus.js';

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

export interface DeliveryTracer {
  record(trace: DeliveryInput): void;
  /** Newest first. */
  recent(filter: { sinceMs?: number; limit?: number; channelId?: string }): DeliveryTrace[];
  stats(): DeliveryStats;
  reset(): number;
  close(): void;
}

export interface DeliveryTracerDeps {
  db: SqliteDatabase;
  writer: BatchWriter;
  now: () => number;
  /**
   * When given, each message:sent becomes a trace, timed from the same session's oldest pending message:received.
   * A payload with `delivered: false` or an `errorKind` string is a failure.
   */
  events?: EventBus;
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

/** Pending receive times are kept for at most this many sessions, so a lost message:sent cannot grow the map. */
const MAX_PENDING_SESSIONS = 10_000;
/** Receive times remembered per session while waiting for its reply. */
const MAX_PENDING_PER_SESSION = 100;

export function createDeliveryTracer({ db, writer, now, events }: DeliveryTracerDeps): DeliveryTracer {
  const insert = db.prepare(
    'INSERT INTO delivery_traces (ts, channel_id, channel_type, session_key, trace_id, outcome, latency_ms, error_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const statsQuery = db.prepare<[], { total: number; successes: number | null; avg_latency: number | null }>(
    "SELECT COUNT(*) AS total, SUM(outcome = 'success') AS successes, AVG(latency_ms) AS avg_latency FROM delivery_traces");
  const deleteAll = db.prepare('DELETE FROM delivery_traces');
  const pending = new Map<string, number[]>();

  function record(trace: DeliveryInput): void {
    const row = [trace.ts ?? now(), trace.channelId, trace.channelType, trace.sessionKey ?? null, trace.traceId ?? null, trace.outcome,
      Math.max(0, Math.round(trace.latencyMs)), trace.errorKind ?? null] as const;
    writer.enqueue(() => insert.run(...row));
  }

  const unsubscribe = events?.subscribe((event) => {
    const sessionKey = typeof event.payload.sessionKey === 'string' ? event.payload.sessionKey : undefined;
    if (sessionKey === undefined) return;
    if (event.name === 'message:received') {
      const oldest = pending.keys().next();
      if (!pending.has(sessionKey) && pending.size >= MAX_PENDING_SESSIONS && oldest.done !== true) pending.delete(oldest.value);
      // Turns of one session are serialised, so a long queue only means replies that never came: keep the newest.
      pending.set(sessionKey, [...(pending.get(sessionKey) ?? []), event.ts].slice(-MAX_PENDING_PER_SESSION));
      return;
    }
    if (event.name !== 'message:sent') return;
    const channel = channelOfEvent(event);
    if (channel === undefined) return;
    const queue = pending.get(sessionKey) ?? [];
    const receivedAt = queue.shift() ?? event.ts;
    if (queue.length === 0) pending.delete(sessionKey);
    const { errorKind, delivered, traceId } = event.payload;
    const isFailure = delivered === false || typeof errorKind === 'string';
    record({
      ts: event.ts, ...channel, sessionKey, outcome: isFailure ? 'failure' : 'success', latencyMs: event.ts - receivedAt,
      ...(typeof traceId === 'string' ? { traceId } : {}),
      ...(typeof errorKind === 'string' ? { errorKind: errorKind.slice(0, 64) } : isFailure ? { errorKind: 'undelivered' } : {}),
    });
  });

  return {
    record,
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
      pending.clear();
      return deleteAll.run().changes;
    },
    close() {
      unsubscribe?.();
    },
  };
}
