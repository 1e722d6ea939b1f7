// The content-free audit log: rows recorded directly by the code that knows the facts, batched, queried by obs.audit.query.
import type { SqliteDatabase } from '../store/index.js';
import type { BatchWriter } from './batch-writer.js';
import type { EventBus } from './event-bus.js';
import type { AuditEvent } from './event-map.js';
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
  /** When given, every recorded row is also announced as audit:event (for /api/events subscribers). */
  events?: EventBus;
}

/** Label columns are short enums or ids; anything longer is cut. */
const label = (value: unknown, fallback: string): string => (typeof value === 'string' && value.length > 0 ? value.slice(0, 128) : fallback);

export function createAuditLog({ db, writer, now, newId, events }: AuditLogDeps): AuditLog {
  const insert = db.prepare(
    `INSERT INTO audit_log (id, tenant_id, agent_id, ts, kind, classification, action, actor, outcome, severity, trace_id, refs)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  function record(input: AuditInput): void {
    const entry: AuditEvent = {
      tenantId: label(input.tenantId, ''), agentId: input.agentId === undefined ? null : label(input.agentId, ''), kind: label(input.kind, 'event'),
      classification: label(input.classification, 'unclassified'), action: label(input.action, 'unknown'), actor: label(input.actor, 'system'),
      outcome: label(input.outcome, 'unknown'), severity: label(input.severity, 'info'), traceId: input.traceId === undefined ? null : label(input.traceId, ''),
      refs: scrubObject(input.refs ?? {}),
    };
    const row = [newId(), entry.tenantId, entry.agentId, input.ts ?? now(), entry.kind, entry.classification, entry.action, entry.actor,
      entry.outcome, entry.severity, entry.traceId, JSON.stringify(entry.refs)] as const;
    writer.enqueue(() => insert.run(...row));
    events?.emit('audit:event', entry);
  }

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
  };
}
