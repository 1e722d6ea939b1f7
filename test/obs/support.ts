// A throwaway observability stack over an in-memory or file database, with a settable clock.
import { createEventBus, type EventBus } from '../../src/obs/event-bus.js';
import { createLogger } from '../../src/obs/logger.js';
import { createObservability, type Observability } from '../../src/obs/observability.js';
import { createRecorder, type Recorder } from '../../src/obs/recorder.js';
import { createSqliteAuditPort, createSqliteEvidencePort, createSqliteObsPort, openDatabase, type SqliteDatabase } from '../../src/store/sqlite/index.js';

/** Lets the bus deliver what was emitted (listeners run off the emitter's stack). */
export const delivered = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface ObsStack {
  db: SqliteDatabase;
  events: EventBus;
  recorder: Recorder;
  obs: Observability;
  clock: { now: number };
  close(): Promise<void>;
}

export function startObs(path = ':memory:', options: { hasDurableRuns?: boolean; startAt?: number } = {}): ObsStack {
  const clock = { now: options.startAt ?? Date.UTC(2026, 0, 15, 12) };
  const now = () => clock.now;
  const db = openDatabase({ path });
  const events = createEventBus({ now, log: createLogger({ level: 'silent' }) });
  const evidence = createSqliteEvidencePort(db);
  const recorder = createRecorder({ port: evidence });
  let ids = 0;
  const obs = createObservability({
    store: { audit: createSqliteAuditPort(db), evidence, obs: createSqliteObsPort(db) }, events, recorder, now, newId: () => `id-${String((ids += 1)).padStart(6, '0')}`,
    priceOf: (provider) => (provider === 'cloud' ? { input: 3, cacheRead: 0.3 } : undefined),
    ...(options.hasDurableRuns === undefined ? {} : { hasDurableRuns: options.hasDurableRuns }),
  });
  return {
    db, events, recorder, obs, clock,
    async close() {
      await obs.close();
      await recorder.close();
      db.close();
    },
  };
}
