// The reflect schedule (`learning.reflectIntervalMs`, 0: only on demand): one pass over every agent each interval,
// run by the one replica holding the reflect lease, never two passes at once in this process.
import type { Logger } from 'pino';
import { createPeriodicTask } from '../periodic-task.js';
import type { Reflector } from './types.js';

/** Under coordination only the replica holding this lease reflects on the schedule. */
export const REFLECT_LEASE = 'learning:reflect';
/** The lease's time to live: longer than a pass over a fleet's agents is expected to take. */
export const REFLECT_LEASE_TTL_MS = 600_000;

export interface ReflectLeases {
  acquire(name: string, ttlMs: number): Promise<boolean>;
  release(name: string): Promise<void>;
}

export interface ReflectTimerDeps {
  reflector: Reflector;
  leases: ReflectLeases;
  intervalMs: number;
  log: Logger;
}

export interface ReflectTimer {
  start(): void;
  /** Cancels the next pass and waits for a running one. */
  stop(): Promise<void>;
}

export function createReflectTimer({ reflector, leases, intervalMs, log }: ReflectTimerDeps): ReflectTimer {
  async function pass(): Promise<void> {
    if (!(await leases.acquire(REFLECT_LEASE, REFLECT_LEASE_TTL_MS))) return;
    try {
      await reflector.reflect();
    } finally {
      await leases.release(REFLECT_LEASE);
    }
  }

  const task = createPeriodicTask({
    run: pass,
    intervalMs: () => intervalMs,
    onTimedFailure: (error) => log.error({ err: error }, 'scheduled reflect pass failed; the next one tries again'),
  });
  return { start: task.start, stop: task.stop };
}
