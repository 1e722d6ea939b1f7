// The content-free audit log: rows recorded directly by the code that knows the facts, batched, queried by obs.audit.query.
import type { EventBus, AuditEvent } from '../events/index.js';
import type { Logger } from 'pino';
import type { AuditedCall } from '../rpc/index.js';
import type { AuditFacets, AuditFilter, AuditPort, AuditRow } from '../store/index.js';
import { createBatchQueue } from './batch-queue.js';
import { scrubObject } from './scrub.js';
import { decodeTimeCursor, nextTimeCursor } from './time-cursor.js';

export type { AuditRow } from '../store/index.js';

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

export type AuditQuery = Omit<AuditFilter, 'limit' | 'before'> & { limit?: number };

/** A query continuing after the page that answered `cursor` (obs.audit.query's nextCursor). */
export type AuditPageQuery = AuditQuery & { cursor?: string };

/** Spec Limits: obs.audit.query limit default 200, clamped to 1000. */
export const AUDIT_DEFAULT_LIMIT = 200;
export const AUDIT_MAX_LIMIT = 1000;

export interface AuditLog {
  /** Queues the row (off the request path) and announces it as audit:event. */
  record(input: AuditInput): void;
  /** Records one JSON-RPC call the dispatcher audits (its method policy, or a forbidden call). */
  recordCall(call: AuditedCall): void;
  /** Newest first (ts descending, then id). */
  query(filter: AuditQuery): Promise<AuditRow[]>;
  /** One page and the cursor of the next (null on the last): rows sharing a millisecond are ordered by id, never skipped. */
  page(filter: AuditPageQuery): Promise<{ rows: AuditRow[]; nextCursor: string | null }>;
  /** The known values of the label columns, for filter dropdowns. */
  facets(): Promise<AuditFacets>;
  /** Writes every queued row. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface AuditLogDeps {
  port: AuditPort;
  now: () => number;
  newId: () => string;
  flushIntervalMs?: number;
  log?: Logger;
  /** When given, every recorded row is also announced as audit:event (for /api/events subscribers). */
  events?: EventBus;
}

/** Label columns are short enums or ids; anything longer is cut. */
const label = (value: unknown, fallback: string): string =>
  typeof value === 'string' && value.length > 0 ? value.slice(0, 128) : fallback;

export function createAuditLog({ port, now, newId, events, flushIntervalMs, log }: AuditLogDeps): AuditLog {
  const queue = createBatchQueue<AuditRow>({
    write: (rows) => port.append(rows),
    ...(flushIntervalMs === undefined ? {} : { flushIntervalMs }),
    ...(log === undefined ? {} : { log }),
  });

  function record(input: AuditInput): void {
    const entry: AuditEvent = {
      tenantId: label(input.tenantId, ''),
      agentId: input.agentId === undefined ? null : label(input.agentId, ''),
      kind: label(input.kind, 'event'),
      classification: label(input.classification, 'unclassified'),
      action: label(input.action, 'unknown'),
      actor: label(input.actor, 'system'),
      outcome: label(input.outcome, 'unknown'),
      severity: label(input.severity, 'info'),
      traceId: input.traceId === undefined ? null : label(input.traceId, ''),
      refs: scrubObject(input.refs ?? {}),
    };
    queue.enqueue({ ...entry, id: newId(), ts: input.ts ?? now(), refs: JSON.stringify(entry.refs) });
    events?.emit('audit:event', entry);
  }

  return {
    record,
    recordCall: (call) =>
      record({
        kind: 'rpc.call',
        classification: call.scope,
        action: call.method,
        actor: call.clientId,
        outcome: call.outcome,
        severity: call.outcome === 'denied' ? 'warning' : call.outcome === 'error' ? 'error' : 'info',
        traceId: call.traceId,
        refs: { transport: call.transport, ...(call.errorKind === undefined ? {} : { errorKind: call.errorKind }) },
      }),
    async query({ limit = AUDIT_DEFAULT_LIMIT, ...filter }) {
      await queue.flush();
      return port.query({ ...filter, limit: Math.min(limit, AUDIT_MAX_LIMIT) });
    },
    async page({ limit = AUDIT_DEFAULT_LIMIT, cursor, ...filter }) {
      const before = cursor === undefined ? undefined : decodeTimeCursor(cursor);
      const clamped = Math.min(limit, AUDIT_MAX_LIMIT);
      await queue.flush();
      const rows = await port.query({ ...filter, limit: clamped, ...(before === undefined ? {} : { before }) });
      return { rows, nextCursor: nextTimeCursor(rows, clamped, (row) => ({ ts: row.ts, id: row.id })) };
    },
    async facets() {
      await queue.flush();
      return port.facets();
    },
    flush: () => queue.flush(),
    close: () => queue.close(),
  };
}
