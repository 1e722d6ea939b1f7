// The content-free audit log: rows from audit:event (or direct calls), batched to SQLite, queried by obs.audit.query.
import type { SqliteDatabase } from '../store/sqlite/index.js';
import type { BatchWriter } from './batch-writer.js';
import type { BusEvent, EventBus } from './event-bus.js';
import { isRecord } from './evidence/read.js';
import { scrubObject } from './scrub.js';

/** Spec Audit row; `refs` is a scrubbed JSON string. tenantId '' marks a tenant-less (system) event. */
export interface AuditRow {
  id: string;
  tenantId: string;
  agentId: string | null;
  ts: number;
  kind: string;
  classification: string;
  action: string;
  actor: string;
  outcome: string;
  severity: string;
  traceId: string | null;
  refs: string;
}

export interface AuditInput {
  tenantId?: string;
  agentId?: string;
  ts?: number;
  kind: string;
  classification?: string;
  action?: string;
  actor?: string;
  outcome?: string;
  severity?: string;
  traceId?: string;
  refs?: Record<string, unknown>;
}

export interface AuditQuery {
  kind?: string;
  classification?: string;
  agentId?: string;
  /** '' selects tenant-less (system) events. */
  tenant?: string;
  outcome?: string;
  /** Inclusive epoch ms. */
  since?: number;
  /** Inclusive epoch ms. */
  until?: number;
  limit?: number;
}

/** Spec Limits: obs.audit.query limit default 200, clamped to 1000. */
export const AUDIT_DEFAULT_LIMIT = 200;
export const AUDIT_MAX_LIMIT = 1000;

export interface AuditLog {
  record(input: AuditInput): void;
  /** Newest first (ts descending, then id). */
  query(filter: AuditQuery): AuditRow[];
}

export interface AuditLogDeps {
  db: SqliteDatabase;
  writer: BatchWriter;
  now: () => number;
  newId: () => string;
  /** When given, every audit:event on the bus becomes a row. */
  events?: EventBus;
}

/** Label columns are short enums or ids; anything longer is cut. */
const label = (value: unknown, fallback: string): string => (typeof value === 'string' && value.length > 0 ? value.slice(0, 128) : fallback);

const FIELD_KEYS = new Set(['tenantId', 'agentId', 'kind', 'classification', 'action', 'actor', 'outcome', 'severity', 'traceId', 'refs']);

/** An audit:event payload: the row fields by name; `refs` as a JSON string, or the remaining keys as refs. */
export function auditInputFromEvent(event: BusEvent): AuditInput {
  const { payload } = event;
  let refs: Record<string, unknown> = {};
  if (typeof payload.refs === 'string') {
    try {
      const parsed: unknown = JSON.parse(payload.refs);
      if (isRecord(parsed)) refs = parsed;
    } catch {
      refs = {};
    }
  } else {
    refs = Object.fromEntries(Object.entries(payload).filter(([key]) => !FIELD_KEYS.has(key)));
  }
  const text = (key: string) => {
    const value = payload[key];
    return typeof value === 'string' ? value : undefined;
  };
  const input: AuditInput = { ts: event.ts, kind: text('kind') ?? 'event', refs };
  for (const key of ['tenantId', 'agentId', 'classification', 'action', 'actor', 'outcome', 'severity', 'traceId'] as const) {
    const value = text(key);
    if (value !== undefined) input[key] = value;
  }
  return input;
}

export function createAuditLog({ db, writer, now, newId, events }: AuditLogDeps): AuditLog & { close(): void } {
  const insert = db.prepare(
    `INSERT INTO audit_log (id, tenant_id, agent_id, ts, kind, classification, action, actor, outcome, severity, trace_id, refs)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  function record(input: AuditInput): void {
    const row = [
      newId(), label(input.tenantId, ''), input.agentId === undefined ? null : label(input.agentId, ''), input.ts ?? now(),
      label(input.kind, 'event'), label(input.classification, 'unclassified'), label(input.action, 'unknown'), label(input.actor, 'system'),
      label(input.outcome, 'unknown'), label(input.severity, 'info'), input.traceId === undefined ? null : label(input.traceId, ''),
      JSON.stringify(scrubObject(input.refs ?? {})),
    ] as const;
    writer.enqueue(() => insert.run(...row));
  }

  const unsubscribe = events?.subscribe((event) => {
    if (event.name === 'audit:event') record(auditInputFromEvent(event));
  });

  return {
    record,
    query(filter) {
      writer.flush();
      const clauses: string[] = [];
      const values: (string | number)[] = [];
      const equal = (column: string, value: string | undefined) => {
        if (value === undefined) return;
        clauses.push(`${column} = ?`);
        values.push(value);
      };
      equal('kind', filter.kind);
      equal('classification', filter.classification);
      equal('agent_id', filter.agentId);
      equal('tenant_id', filter.tenant);
      equal('outcome', filter.outcome);
      if (filter.since !== undefined) {
        clauses.push('ts >= ?');
        values.push(filter.since);
      }
      if (filter.until !== undefined) {
        clauses.push('ts <= ?');
        values.push(filter.until);
      }
      const limit = Math.min(filter.limit ?? AUDIT_DEFAULT_LIMIT, AUDIT_MAX_LIMIT);
      const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
      return db.prepare<(string | number)[], AuditRow>(
        `SELECT id, tenant_id AS tenantId, agent_id AS agentId, ts, kind, classification, action, actor, outcome, severity, trace_id AS traceId, refs
         FROM audit_log ${where} ORDER BY ts DESC, id DESC LIMIT ?`,
      ).all(...values, limit);
    },
    close() {
      unsubscribe?.();
    },
  };
}
