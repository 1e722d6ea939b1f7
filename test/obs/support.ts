// A throwaway observability stack over an in-memory or file database, with a settable clock.
import { createEventBus, type EventBus } from '../../src/events/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createObservability, type Observability } from '../../src/obs/observability.js';
import { createRecorder, type Recorder } from '../../src/obs/recorder.js';
import type { RetentionLeases } from '../../src/obs/retention.js';
import {
  createSqliteAuditPort,
  createSqliteEvidencePort,
  createSqliteObsPort,
  createSqliteRetentionPort,
  openDatabase,
  type SqliteDatabase,
} from '../../src/store/sqlite/index.js';

/** Lets the bus deliver what was emitted (listeners run off the emitter's stack). */
export const delivered = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface ObsStack {
  db: SqliteDatabase;
  events: EventBus;
  recorder: Recorder;
  obs: Observability;
  clock: { now: number };
  /** Read by the stack at every use: obs.retentionDays. */
  settings: { retentionDays: number };
  close(): Promise<void>;
}

export interface ObsStackOptions {
  hasDurableRuns?: boolean;
  startAt?: number;
  /** obs.retentionDays; 30 (the default) when absent. */
  retentionDays?: number;
  /** The leases the retention sweep takes; this process always holds them when absent. */
  leases?: RetentionLeases;
}

export function startObs(path = ':memory:', options: ObsStackOptions = {}): ObsStack {
  const clock = { now: options.startAt ?? Date.UTC(2026, 0, 15, 12) };
  const settings = { retentionDays: options.retentionDays ?? 30 };
  const now = () => clock.now;
  const db = openDatabase({ path });
  const events = createEventBus({ now, log: createLogger({ level: 'silent' }) });
  const evidence = createSqliteEvidencePort(db);
  const recorder = createRecorder({ port: evidence });
  let ids = 0;
  const obs = createObservability({
    store: {
      audit: createSqliteAuditPort(db),
      evidence,
      obs: createSqliteObsPort(db),
      retention: createSqliteRetentionPort(db),
    },
    events,
    recorder,
    now,
    newId: () => `id-${String((ids += 1)).padStart(6, '0')}`,
    retentionDays: () => settings.retentionDays,
    ...(options.leases === undefined ? {} : { leases: options.leases }),
    priceOf: (provider) => (provider === 'cloud' ? { input: 3, cacheRead: 0.3 } : undefined),
    ...(options.hasDurableRuns === undefined ? {} : { hasDurableRuns: options.hasDurableRuns }),
  });
  return {
    db,
    events,
    recorder,
    obs,
    clock,
    settings,
    async close() {
      await obs.close();
      await recorder.close();
      db.close();
    },
  };
}
