// Diagnostic events (category, kind, count; scrubbed data) from the bus or direct calls, batched to SQLite for obs.diagnostics.
import type { SqliteDatabase } from '../store/index.js';
import type { BatchWriter } from './batch-writer.js';
import type { EventBus } from './event-bus.js';
import type { EventName } from './event-map.js';
import { SEVERITIES, type Severity } from './evidence/kinds.js';
import { oneOf, parseData } from './evidence/read.js';
import { scrubObject, type Scrubbed } from './scrub.js';

/** Decided here (spec: "DiagnosticEvent field list: not shown"). */
export interface DiagnosticEvent {
  id: number;
  ts: number;
  category: string;
  kind: string;
  count: number;
  severity: Severity;
  data: { [key: string]: Scrubbed };
}

export type DiagnosticInput = Pick<DiagnosticEvent, 'category' | 'kind'> & Partial<Pick<DiagnosticEvent, 'ts' | 'count' | 'severity'>> & { data?: Record<string, unknown> };

export const DIAGNOSTICS_DEFAULT_LIMIT = 100;
export const DIAGNOSTICS_MAX_LIMIT = 1000;

/** Bus events that become diagnostic events, with their severity; the category is the part before the colon. */
export const DIAGNOSTIC_EVENTS: Partial<Record<EventName, Severity>> = {
  'diagnostic:channel_health': 'info',
  'diagnostic:billing_snapshot': 'info',
  'system:error': 'error',
  'provider:degraded': 'warning',
  'provider:recovered': 'info',
  'model:fallback_attempt': 'info',
  'model:fallback_exhausted': 'warning',
  'model:auth_cooldown': 'warning',
  'security:injection_detected': 'warning',
  'security:injection_rate_exceeded': 'warning',
  'security:memory_tainted': 'warning',
  'security:warn': 'warning',
  'skill:rejected': 'info',
  'session:sub_agent_spawn_rejected': 'info',
  'scheduler:heartbeat_alert': 'warning',
  'config:patched': 'info',
  'observability:reset': 'info',
};

export interface DiagnosticsQuery {
  category?: string;
  limit?: number;
  sinceMs?: number;
}

export interface Diagnostics {
  record(input: DiagnosticInput): void;
  /** Newest first; counts sum `count` per `category:kind` over every matching event, not only the listed ones. */
  query(filter: DiagnosticsQuery): { events: DiagnosticEvent[]; counts: Record<string, number> };
  reset(): number;
  close(): void;
}

export interface DiagnosticsDeps {
  db: SqliteDatabase;
  writer: BatchWriter;
  now: () => number;
  events?: EventBus;
}

interface DiagnosticRow {
  id: number;
  ts: number;
  category: string;
  kind: string;
  count: number;
  severity: string;
  data: string;
}

export function createDiagnostics({ db, writer, now, events }: DiagnosticsDeps): Diagnostics {
  const insert = db.prepare('INSERT INTO diagnostic_events (ts, category, kind, count, severity, data) VALUES (?, ?, ?, ?, ?, ?)');
  const deleteAll = db.prepare('DELETE FROM diagnostic_events');

  function record(input: DiagnosticInput): void {
    const count = typeof input.count === 'number' && Number.isFinite(input.count) && input.count > 0 ? Math.round(input.count) : 1;
    const row = [input.ts ?? now(), input.category.slice(0, 64), input.kind.slice(0, 64), count, input.severity ?? 'info', JSON.stringify(scrubObject(input.data ?? {}))] as const;
    writer.enqueue(() => insert.run(...row));
  }

  const unsubscribe = events?.subscribe((event) => {
    const severity = DIAGNOSTIC_EVENTS[event.name];
    if (severity === undefined) return;
    const [category = event.name, kind = event.name] = event.name.split(':');
    const count = 'count' in event.payload ? event.payload.count : undefined;
    record({ ts: event.ts, category, kind, severity, data: event.payload, ...(typeof count === 'number' ? { count } : {}) });
  });

  return {
    record,
    query({ category, limit = DIAGNOSTICS_DEFAULT_LIMIT, sinceMs }) {
      writer.flush();
      const clauses: string[] = [];
      const values: (string | number)[] = [];
      if (category !== undefined) {
        clauses.push('category = ?');
        values.push(category);
      }
      if (sinceMs !== undefined) {
        clauses.push('ts >= ?');
        values.push(sinceMs);
      }
      const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
      const rows = db.prepare<(string | number)[], DiagnosticRow>(`SELECT * FROM diagnostic_events ${where} ORDER BY ts DESC, id DESC LIMIT ?`)
        .all(...values, Math.min(limit, DIAGNOSTICS_MAX_LIMIT));
      const sums = db.prepare<(string | number)[], { category: string; kind: string; total: number }>(
        `SELECT category, kind, SUM(count) AS total FROM diagnostic_events ${where} GROUP BY category, kind ORDER BY category, kind`).all(...values);
      return {
        events: rows.map((row) => ({
          id: row.id, ts: row.ts, category: row.category, kind: row.kind, count: row.count,
          severity: oneOf(row.severity, SEVERITIES) ?? 'info',
          data: scrubObject(parseData(row.data)),
        })),
        counts: Object.fromEntries(sums.map((sum) => [`${sum.category}:${sum.kind}`, sum.total])),
      };
    },
    reset() {
      writer.flush();
      return deleteAll.run().changes;
    },
    close() {
      unsubscribe?.();
    },
  };
}
