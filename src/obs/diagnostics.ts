// Diagnostic events (category, kind, count; scrubbed data) from the bus or direct calls, batched to the obs port for obs.diagnostics.
import type { EventBus, EventName } from '../events/index.js';
import type { ObsPort, ObsWrite } from '../store/index.js';
import type { BatchQueue } from './batch-queue.js';
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

export type DiagnosticInput = Pick<DiagnosticEvent, 'category' | 'kind'> &
  Partial<Pick<DiagnosticEvent, 'ts' | 'count' | 'severity'>> & { data?: Record<string, unknown> };

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
  query(filter: DiagnosticsQuery): Promise<{ events: DiagnosticEvent[]; counts: Record<string, number> }>;
  reset(): Promise<number>;
  close(): void;
}

export interface DiagnosticsDeps {
  port: ObsPort;
  /** The obs write queue shared with delivery traces and health signals. */
  queue: BatchQueue<ObsWrite>;
  now: () => number;
  events?: EventBus;
}

export function createDiagnostics({ port, queue, now, events }: DiagnosticsDeps): Diagnostics {
  function record(input: DiagnosticInput): void {
    const count =
      typeof input.count === 'number' && Number.isFinite(input.count) && input.count > 0 ? Math.round(input.count) : 1;
    queue.enqueue({
      type: 'diagnostic',
      row: {
        ts: input.ts ?? now(),
        category: input.category.slice(0, 64),
        kind: input.kind.slice(0, 64),
        count,
        severity: input.severity ?? 'info',
        data: JSON.stringify(scrubObject(input.data ?? {})),
      },
    });
  }

  const unsubscribe = events?.subscribe((event) => {
    const severity = DIAGNOSTIC_EVENTS[event.name];
    if (severity === undefined) return;
    const [category = event.name, kind = event.name] = event.name.split(':');
    const count = 'count' in event.payload ? event.payload.count : undefined;
    record({
      ts: event.ts,
      category,
      kind,
      severity,
      data: event.payload,
      ...(typeof count === 'number' ? { count } : {}),
    });
  });

  return {
    record,
    async query({ category, limit = DIAGNOSTICS_DEFAULT_LIMIT, sinceMs }) {
      await queue.flush();
      const { rows, totals } = await port.diagnostics({
        ...(category === undefined ? {} : { category }),
        ...(sinceMs === undefined ? {} : { sinceMs }),
        limit: Math.min(limit, DIAGNOSTICS_MAX_LIMIT),
      });
      return {
        events: rows.map((row) => ({
          id: row.id,
          ts: row.ts,
          category: row.category,
          kind: row.kind,
          count: row.count,
          severity: oneOf(row.severity, SEVERITIES) ?? 'info',
          data: scrubObject(parseData(row.data)),
        })),
        counts: Object.fromEntries(totals.map((sum) => [`${sum.category}:${sum.kind}`, sum.total])),
      };
    },
    async reset() {
      await queue.flush();
      return port.reset('diagnostics');
    },
    close() {
      unsubscribe?.();
    },
  };
}
