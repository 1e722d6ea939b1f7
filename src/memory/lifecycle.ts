// The scheduled memory lifecycle sweep: per agent, demote, promote and evict by policy, and record each sweep as evidence.
//
// The catalogue's learning:memory_demoted, learning:memory_evicted and learning:lifecycle_swept are trajectory
// events, which this gateway keeps as evidence records rather than bus events (src/obs/event-map.ts). A sweep of
// one agent is fleet-level, not part of any session's trajectory, so it is one `memory_lifecycle` health signal
// (agent_id column, ts = the sweep's time, data {scanned, promoted, demoted, evicted}): the lifecycle_swept record,
// whose demoted and evicted counts are the per-sweep memory_demoted and memory_evicted counts. The fleet report's
// `memory_lifecycle` finding reads exactly these rows (src/obs/fleet/signals.ts). Each sweep also records the
// catalogue's names as signals of their own: learning.memory_demoted and learning.memory_evicted (counts, when not
// zero) and learning.lifecycle_swept.
import type { Logger } from 'pino';
import type { MemoryConfig } from '../config/index.js';
import { SIGNAL_KIND, type HealthSignalRecorder } from '../obs/index.js';
import { createPeriodicTask } from '../periodic-task.js';
import type { LifecycleOutcome, LifecyclePolicy, MemoryPort } from '../store/index.js';

export const DAY_MS = 86_400_000;

/** The store's policy from the `memory.lifecycle` config (days there, ms in the store). */
export function lifecyclePolicyOf({
  demoteAfterDays,
  evictAfterDays,
  maxDemotedPerAgent,
}: MemoryConfig['lifecycle']): LifecyclePolicy {
  return { demoteAfterMs: demoteAfterDays * DAY_MS, evictAfterMs: evictAfterDays * DAY_MS, maxDemotedPerAgent };
}

/**
 * The catalogue's learning:memory_demoted and learning:memory_evicted (each sweep's counts, when not zero) and
 * learning:lifecycle_swept (once per sweep), as fleet health signals of the agent.
 */
function recordCatalogueSignals(signals: HealthSignalRecorder, outcome: LifecycleOutcome, timestamp: number): void {
  const { agentId, scanned, promoted, demoted, evicted } = outcome;
  if (demoted > 0)
    signals.record({
      kind: SIGNAL_KIND.learningMemoryDemoted,
      ts: timestamp,
      agentId,
      data: { agentId, count: demoted, timestamp },
    });
  if (evicted > 0)
    signals.record({
      kind: SIGNAL_KIND.learningMemoryEvicted,
      ts: timestamp,
      agentId,
      data: { agentId, count: evicted, timestamp },
    });
  signals.record({
    kind: SIGNAL_KIND.learningLifecycleSwept,
    ts: timestamp,
    agentId,
    data: { agentId, scanned, promoted, demoted, evicted, timestamp },
  });
}

export interface LifecycleSweeperDeps {
  port: Pick<MemoryPort, 'agentsWithEntries' | 'sweep'>;
  /** Where each agent's sweep is recorded (Observability.signals). */
  signals: HealthSignalRecorder;
  /** Read at every sweep, so a config reload applies to the next one. */
  policy: () => LifecyclePolicy;
  /** Ms between the end of one sweep and the start of the next. */
  intervalMs: number;
  now: () => number;
  log: Logger;
}

export interface LifecycleSweeper {
  /** Schedules the first sweep intervalMs from now; a second call does nothing. */
  start(): void;
  /** Cancels the next sweep and waits for a running one to end; no sweep starts after it resolves. */
  stop(): Promise<void>;
  /** Sweeps every agent now, or joins the sweep already running; resolves to each agent's outcome. */
  sweepNow(): Promise<LifecycleOutcome[]>;
}

export function createLifecycleSweeper({
  port,
  signals,
  policy,
  intervalMs,
  now,
  log,
}: LifecycleSweeperDeps): LifecycleSweeper {
  async function sweepAgent(agentId: string, current: LifecyclePolicy): Promise<LifecycleOutcome | undefined> {
    const at = now();
    try {
      const { scanned, promoted, demoted, evicted } = await port.sweep(agentId, current, at);
      signals.record({
        kind: SIGNAL_KIND.memoryLifecycle,
        ts: at,
        agentId,
        data: { scanned, promoted, demoted, evicted },
      });
      recordCatalogueSignals(signals, { agentId, scanned, promoted, demoted, evicted }, at);
      if (demoted > 0 || evicted > 0)
        log.info({ agentId, scanned, promoted, demoted, evicted }, 'memory lifecycle sweep');
      return { agentId, scanned, promoted, demoted, evicted };
    } catch (error) {
      // One agent's failure leaves the others' sweeps standing; the next sweep tries it again.
      log.error({ err: error, agentId }, 'memory lifecycle sweep failed');
      return undefined;
    }
  }

  async function sweepAll(): Promise<LifecycleOutcome[]> {
    const current = policy();
    const outcomes: LifecycleOutcome[] = [];
    for (const agentId of await port.agentsWithEntries()) {
      if (task.isStopped()) break;
      const outcome = await sweepAgent(agentId, current);
      if (outcome !== undefined) outcomes.push(outcome);
    }
    return outcomes;
  }

  const task = createPeriodicTask({
    // After stop() a sweep asked for answers nothing rather than starting one.
    run: async (): Promise<LifecycleOutcome[]> =>
      task.isStopped()
        ? []
        : sweepAll().catch((error: unknown) => {
            log.error({ err: error }, 'memory lifecycle sweep could not list agents');
            return [];
          }),
    intervalMs: () => intervalMs,
    onTimedFailure: () => undefined,
  });

  return { start: task.start, stop: task.stop, sweepNow: task.runNow };
}
