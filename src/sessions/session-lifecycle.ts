// The session lifecycle sweep: every sessions.sweepIntervalMs it expires sessions idle past sessions.idleTtlMs
// (session:expired), archives sub-agent sessions whose run ended runs.archiveAfterMs ago (session:sub_agent_archived)
// and deletes expired sessions older than sessions.expiredRetentionDays; a bounded batch of each per sweep.
import type { Logger } from 'pino';
import type { EventBus } from '../events/index.js';
import { createPeriodicTask } from '../periodic-task.js';
import type { SessionPort } from './types.js';

const DAY_MS = 86_400_000;
/** Sessions each step of one sweep handles at most; the rest wait for the next sweep. */
export const SESSION_SWEEP_BATCH = 500;

/** The settings the sweep reads before each sweep, so a config change applies from the next one. */
export interface SessionLifecycleSettings {
  /** sessions.idleTtlMs; 0: sessions never expire. */
  idleTtlMs: number;
  /** sessions.expiredRetentionDays; 0: expired transcripts are kept. */
  expiredRetentionDays: number;
  sweepIntervalMs: number;
  /** runs.archiveAfterMs; 0: sub-agent sessions are never archived. */
  archiveAfterMs: number;
}

/** The sweep's settings out of the config: the `sessions` section and `runs.archiveAfterMs`. */
export function lifecycleSettings(config: {
  sessions: Omit<SessionLifecycleSettings, 'archiveAfterMs'>;
  runs: Pick<SessionLifecycleSettings, 'archiveAfterMs'>;
}): SessionLifecycleSettings {
  const { idleTtlMs, expiredRetentionDays, sweepIntervalMs } = config.sessions;
  return { idleTtlMs, expiredRetentionDays, sweepIntervalMs, archiveAfterMs: config.runs.archiveAfterMs };
}

export interface SessionLifecycleDeps {
  store: Pick<SessionPort, 'expireIdle' | 'archiveFinishedSubAgents' | 'deleteExpired'>;
  events: EventBus;
  settings: () => SessionLifecycleSettings;
  now: () => number;
  log: Logger;
}

export interface SessionLifecycle {
  /** Schedules the first sweep one interval from now; a second call does nothing. */
  start(): void;
  /** Cancels the next sweep and waits for a running one. */
  stop(): Promise<void>;
  /** Sweeps now, or joins the sweep already running. */
  sweepNow(): Promise<void>;
}

export function createSessionLifecycle({ store, events, settings, now, log }: SessionLifecycleDeps): SessionLifecycle {
  // Stopped is read between a sweep's steps, so a shutdown mid-sweep starts no further step.
  async function sweepOnce(): Promise<void> {
    const { idleTtlMs, expiredRetentionDays, archiveAfterMs } = settings();
    const at = now();
    if (idleTtlMs > 0) {
      const expired = await store.expireIdle(at - idleTtlMs, at, SESSION_SWEEP_BATCH);
      for (const sessionKey of expired) events.emit('session:expired', { sessionKey });
    }
    if (task.isStopped()) return;
    if (archiveAfterMs > 0) {
      const archived = await store.archiveFinishedSubAgents(at - archiveAfterMs, at, SESSION_SWEEP_BATCH);
      for (const { runId, sessionKey } of archived) events.emit('session:sub_agent_archived', { runId, sessionKey });
    }
    if (task.isStopped() || expiredRetentionDays === 0) return;
    const deleted = await store.deleteExpired(at - expiredRetentionDays * DAY_MS, SESSION_SWEEP_BATCH);
    if (deleted > 0) log.info({ deleted, expiredRetentionDays }, 'expired sessions deleted past their retention');
  }

  const task = createPeriodicTask({
    run: sweepOnce,
    intervalMs: () => settings().sweepIntervalMs,
    onTimedFailure: (error) => log.error({ err: error }, 'session lifecycle sweep failed; the next one tries again'),
  });

  return { start: task.start, stop: task.stop, sweepNow: task.runNow };
}
