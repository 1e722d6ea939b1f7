// Builds the observability services over the storage ports and event bus: recorders, queries, reports and resets.
import type { EventBus, ResetCounts } from '../events/index.js';
import type { Logger } from 'pino';
import type { AuditPort, EvidencePort, ObsPort, ObsWrite, RetentionPort } from '../store/index.js';
import { createBatchQueue } from './batch-queue.js';
import { createAuditLog, type AuditLog } from './audit.js';
import { createBilling, type Billing } from './billing.js';
import { createCacheStats, type CacheStats } from './cache-stats.js';
import { createChannelActivityTracker, type ChannelActivityTracker } from './channels.js';
import { createContextReports, type ContextReports } from './context-report.js';
import { createDeliveryTracer, type DeliveryTracer } from './delivery.js';
import { createDiagnostics, type Diagnostics } from './diagnostics.js';
import { createFleetLoader } from './evidence/fleet-loader.js';
import { createSessionLoader } from './evidence/session-loader.js';
import { explainSession, type ExplainParams, type ExplainResult } from './explain/index.js';
import { assembleFleetHealth, type FleetHealthReport } from './fleet/index.js';
import { subscribeProviderHealth } from './health-feed.js';
import { createHealthSignalRecorder, type HealthSignalRecorder } from './health-signals.js';
import type { PriceLookup } from './pricing.js';
import type { Recorder } from './recorder.js';
import { createRetentionSweeper, type RetentionLeases, type RetentionSweeper } from './retention.js';
import { createTraceSearch, type TraceRow, type TraceSearchParams } from './trace-search.js';

/** The tables obs.reset.table accepts (spec). */
export const RESETTABLE_TABLES = ['token_usage', 'delivery', 'diagnostics', 'channels'] as const;
export type ResettableTable = (typeof RESETTABLE_TABLES)[number];

/** Spec rule 5: obs.fleet.health sinceHours default. */
export const FLEET_DEFAULT_SINCE_HOURS = 24;

export interface ObservabilityDeps {
  /** The ports the recorders write through and the reports read. */
  store: { audit: AuditPort; evidence: EvidencePort; obs: ObsPort; retention: RetentionPort };
  events: EventBus;
  /** The turn loop's recorder: flushed before every read so the current run is counted once. */
  recorder: Pick<Recorder, 'flush'>;
  now: () => number;
  newId: () => string;
  priceOf?: PriceLookup;
  /** Whether the crash-surviving run table is wired (the gateway: yes; an offline reader: no autonomy block). */
  hasDurableRuns?: boolean;
  flushIntervalMs?: number;
  log?: Logger;
  /** obs.retentionDays, read at every retention sweep; absent: 0, evidence is kept forever. */
  retentionDays?: () => number;
  /** obs.billingSnapshotIntervalMs (diagnostic:billing_snapshot); absent or 0: no snapshots. */
  billingSnapshotIntervalMs?: () => number;
  /** The coordination leases, so one replica sweeps a shared store; absent: this process always holds them. */
  leases?: RetentionLeases;
}

/** One process with no other replica: it holds every lease. */
const OWN_LEASES: RetentionLeases = { acquire: async () => true, renew: async () => true, release: async () => {} };

export interface Observability {
  readonly billing: Billing;
  readonly channels: ChannelActivityTracker;
  readonly delivery: DeliveryTracer;
  readonly diagnostics: Diagnostics;
  readonly audit: AuditLog;
  readonly signals: HealthSignalRecorder;
  readonly context: ContextReports;
  /** The evidence retention sweep and the storage report (obs.storage.*); its timer runs once started. */
  readonly retention: RetentionSweeper;
  cacheStats(): Promise<CacheStats>;
  traceSearch(params: TraceSearchParams): Promise<{ rows: TraceRow[] }>;
  explain(params: ExplainParams): Promise<ExplainResult>;
  fleetHealth(params: { sinceHours?: number }): Promise<FleetHealthReport>;
  /** Deletes token usage, delivery traces, diagnostics and channel activity; emits observability:reset. */
  reset(): Promise<ResetCounts>;
  resetTable(table: ResettableTable): Promise<number>;
  /** Writes every buffered record (the recorder's and the observability writers'). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createObservability(deps: ObservabilityDeps): Observability {
  const { events, recorder, now, newId, priceOf, hasDurableRuns = false } = deps;
  const batching = {
    ...(deps.flushIntervalMs === undefined ? {} : { flushIntervalMs: deps.flushIntervalMs }),
    ...(deps.log === undefined ? {} : { log: deps.log }),
  };
  // Delivery traces, diagnostics and health signals share one queue, so one transaction carries them all.
  const counters = createBatchQueue<ObsWrite>({ write: (batch) => deps.store.obs.append(batch), ...batching });
  const flush = async () => {
    await recorder.flush();
    await counters.flush();
  };
  const billing = createBilling({ port: deps.store.obs, flush, now, ...(priceOf === undefined ? {} : { priceOf }) });
  const cache = createCacheStats({ port: deps.store.obs, flush, ...(priceOf === undefined ? {} : { priceOf }) });
  const channels = createChannelActivityTracker({ port: deps.store.obs, queue: counters, now, events });
  const delivery = createDeliveryTracer({ port: deps.store.obs, queue: counters, now });
  const diagnostics = createDiagnostics({ port: deps.store.obs, queue: counters, now, events });
  const audit = createAuditLog({ port: deps.store.audit, now, newId, events, ...batching });
  const signals = createHealthSignalRecorder({ queue: counters, now });
  const stopProviderHealth = subscribeProviderHealth({ events, signals });
  const context = createContextReports({ port: deps.store.evidence, flush });
  const traces = createTraceSearch({ port: deps.store.evidence, flush, now });
  const sessionLoader = createSessionLoader({ port: deps.store.evidence, flush });
  const fleetLoader = createFleetLoader({ port: deps.store.evidence, flush, hasDurableRuns });
  const retention = createRetentionSweeper({
    port: deps.store.retention,
    retentionDays: deps.retentionDays ?? (() => 0),
    leases: deps.leases ?? OWN_LEASES,
    now,
    ...(deps.log === undefined ? {} : { log: deps.log }),
    flush: async () => {
      await flush();
      await audit.flush();
    },
  });

  const resetters: Record<ResettableTable, () => number | Promise<number>> = {
    token_usage: () => billing.reset(),
    delivery: () => delivery.reset(),
    diagnostics: () => diagnostics.reset(),
    channels: () => channels.reset(),
  };

  return {
    billing,
    channels,
    delivery,
    diagnostics,
    audit,
    signals,
    context,
    retention,
    cacheStats: () => cache.read(),
    traceSearch: (params) => traces.search(params),
    explain: (params) => explainSession(sessionLoader, params),
    fleetHealth: async ({ sinceHours = FLEET_DEFAULT_SINCE_HOURS }) =>
      assembleFleetHealth(await fleetLoader.load({ nowMs: now(), sinceHours })),
    async reset() {
      const rowsDeleted = {
        tokenUsage: await resetters.token_usage(),
        delivery: await resetters.delivery(),
        diagnostics: await resetters.diagnostics(),
        channels: await resetters.channels(),
      };
      events.emit('observability:reset', { table: 'all', rowsDeleted });
      return rowsDeleted;
    },
    async resetTable(table) {
      const rowsDeleted = await resetters[table]();
      events.emit('observability:reset', { table, rowsDeleted });
      return rowsDeleted;
    },
    flush,
    async close() {
      await retention.stop();
      stopProviderHealth();
      channels.close();
      diagnostics.close();
      await counters.close();
      await audit.close();
    },
  };
}
