// The evidence retention sweep (obs.retentionDays): every hour, evidence recorded before the window is deleted, table by
// table, a small batch per transaction so the store's writer is never held for long; obs.storage.stats reports it.
import type { Logger } from 'pino';
import { createPeriodicTask } from '../periodic-task.js';
import { EVIDENCE_TABLES, type EvidenceTable, type RetentionPort, type StorageSize } from '../store/index.js';

const DAY_MS = 86_400_000;
/** Time between the end of one sweep and the start of the next. */
export const RETENTION_SWEEP_INTERVAL_MS = 3_600_000;
/** The first sweep after start: soon, so an upgraded gateway trims its history, yet after startup's own work. */
export const RETENTION_FIRST_SWEEP_MS = 60_000;
/** Rows one delete transaction removes at most: a few milliseconds of the writer's time. */
export const RETENTION_BATCH_ROWS = 500;
/** Under coordination: redis only the replica holding this lease sweeps the shared store. */
export const RETENTION_LEASE = 'obs:retention';
/** The lease's time to live; a sweep renews it every RETENTION_RENEW_BATCHES batches and releases it when it ends. */
export const RETENTION_LEASE_TTL_MS = 600_000;
/** A few seconds of deletes, far inside the lease's TTL. */
export const RETENTION_RENEW_BATCHES = 100;

/** The leases of src/coordination (a local gateway always holds them). */
export interface RetentionLeases {
  acquire(name: string, ttlMs: number): Promise<boolean>;
  /** False when the lease lapsed and another replica took it. */
  renew(name: string, ttlMs: number): Promise<boolean>;
  release(name: string): Promise<void>;
}

export type RetentionOutcome = 'swept' | 'off' | 'other_replica' | 'stopped' | 'failed';

export interface RetentionSweep {
  startedAt: number;
  finishedAt: number;
  retentionDays: number;
  /** Rows recorded before this time were deleted; null when nothing was (retention off, or another replica sweeps). */
  cutoffMs: number | null;
  /**
   * off: retentionDays is 0; other_replica: another replica holds the lease (or took it over mid-sweep); stopped: the
   * gateway shut down mid-sweep; failed: the store or the lease failed (see error), the next sweep tries again.
   */
  outcome: RetentionOutcome;
  deleted: Record<EvidenceTable, number>;
  /** Why a failed sweep failed (the next one tries again). */
  error?: string;
}

export interface StorageReport {
  retentionDays: number;
  sweepIntervalMs: number;
  /** Null until the first sweep since start. */
  lastSweep: RetentionSweep | null;
  storage: StorageSize;
}

export interface RetentionSweeper {
  /** Schedules the first sweep RETENTION_FIRST_SWEEP_MS from now; a second call does nothing. */
  start(): void;
  /** Cancels the next sweep and waits for a running one, which stops after its current batch. */
  stop(): Promise<void>;
  /** Sweeps now, or joins the sweep already running. */
  sweepNow(): Promise<RetentionSweep>;
  report(signal?: AbortSignal): Promise<StorageReport>;
}

export interface RetentionSweeperDeps {
  port: RetentionPort;
  /** obs.retentionDays, read at every sweep; 0 keeps evidence forever. */
  retentionDays: () => number;
  leases: RetentionLeases;
  /** Writes the buffered evidence, so the report counts every row recorded so far. */
  flush: () => Promise<void>;
  now: () => number;
  log?: Logger;
}

const noneDeleted = (): Record<EvidenceTable, number> => ({
  trajectory: 0,
  session_index: 0,
  token_usage: 0,
  delivery_traces: 0,
  diagnostic_events: 0,
  health_signals: 0,
  audit_log: 0,
  learning_outcomes: 0,
  procedure_uses: 0,
  graph_runs: 0,
});

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function createRetentionSweeper({
  port,
  retentionDays,
  leases,
  flush,
  now,
  log,
}: RetentionSweeperDeps): RetentionSweeper {
  let lastSweep: RetentionSweep | null = null;
  let isFirstSweep = true;
  // Sweeps never overlap however long one takes: the next is scheduled once one ended.
  const task = createPeriodicTask({
    async run() {
      lastSweep = await sweepOnce();
      return lastSweep;
    },
    intervalMs() {
      const delayMs = isFirstSweep ? RETENTION_FIRST_SWEEP_MS : RETENTION_SWEEP_INTERVAL_MS;
      isFirstSweep = false;
      return delayMs;
    },
    onTimedFailure: (error) => log?.error({ err: error }, 'evidence retention sweep failed'),
  });

  /** Deletes table by table, batch by batch; ends early (with the outcome) on shutdown or when the lease is lost. */
  async function deleteOlder(cutoffMs: number, deleted: Record<EvidenceTable, number>): Promise<RetentionOutcome> {
    let batches = 0;
    for (const table of EVIDENCE_TABLES) {
      for (;;) {
        if (task.isStopped()) return 'stopped';
        const batch = await port.deleteBefore(table, cutoffMs, RETENTION_BATCH_ROWS);
        deleted[table] += batch;
        if (batch < RETENTION_BATCH_ROWS) break;
        batches += 1;
        if (batches % RETENTION_RENEW_BATCHES === 0 && !(await leases.renew(RETENTION_LEASE, RETENTION_LEASE_TTL_MS)))
          return 'other_replica';
      }
    }
    return 'swept';
  }

  async function sweepOnce(): Promise<RetentionSweep> {
    const startedAt = now();
    const days = retentionDays();
    const deleted = noneDeleted();
    const finish = (outcome: RetentionOutcome, cutoffMs: number | null, error?: string): RetentionSweep => ({
      startedAt,
      finishedAt: now(),
      retentionDays: days,
      cutoffMs,
      outcome,
      deleted,
      ...(error === undefined ? {} : { error }),
    });
    if (days === 0) return finish('off', null);
    try {
      if (!(await leases.acquire(RETENTION_LEASE, RETENTION_LEASE_TTL_MS))) return finish('other_replica', null);
    } catch (error) {
      log?.error({ err: error }, 'the evidence retention lease could not be taken; the next sweep tries again');
      return finish('failed', null, messageOf(error));
    }
    const cutoffMs = startedAt - days * DAY_MS;
    try {
      const outcome = await deleteOlder(cutoffMs, deleted);
      const total = Object.values(deleted).reduce((sum, count) => sum + count, 0);
      if (total > 0) log?.info({ retentionDays: days, deleted, outcome }, 'evidence retention sweep');
      return finish(outcome, cutoffMs);
    } catch (error) {
      log?.error({ err: error }, 'evidence retention sweep failed; the next one tries again');
      return finish('failed', cutoffMs, messageOf(error));
    } finally {
      await leases
        .release(RETENTION_LEASE)
        .catch((error: unknown) => log?.warn({ err: error }, 'the evidence retention lease could not be released'));
    }
  }

  return {
    start: task.start,
    stop: task.stop,
    sweepNow: task.runNow,
    async report(signal) {
      await flush();
      return {
        retentionDays: retentionDays(),
        sweepIntervalMs: RETENTION_SWEEP_INTERVAL_MS,
        lastSweep,
        storage: await port.size(signal),
      };
    },
  };
}
