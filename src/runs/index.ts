// Runs: every run (spawns, cron fires, webhooks) and its tree's controls as a capability module — session.spawn,
// session.run_status, run.kill, lease.revoke, run.list, run.get, the session_spawn tool, orphan recovery.
import type { CapabilityModule } from '../capability.js';
import type { HealthSignalRecorder } from '../obs/index.js';
import { controlMethods } from './control-methods.js';
import { runMethods } from './methods.js';
import { createRunControl, type RunControl, type RunControlDeps } from './run-control.js';
import { spawnTool } from './spawn-tool.js';
import { createSubAgentRuns, type SubAgentRuns, type SubAgentRunsDeps } from './sub-agent-runs.js';

export { createSubAgentRuns, type SubAgentRuns } from './sub-agent-runs.js';
export {
  createRunControl,
  GATEWAY_SHUTDOWN,
  type RunControl,
  type RunHandle,
  type StartRunInput,
} from './run-control.js';

/** Spawned runs allowed in flight at once in one process; beyond it a spawn queues (runs.spawnQueue), then is refused. */
export const DEFAULT_MAX_RUNNING_SPAWNS = 16;

/** How often an instance heartbeats its running runs, so another instance can tell they are still owned. */
export const DEFAULT_RUN_HEARTBEAT_MS = 30_000;

export interface RunsModuleDeps extends Omit<SubAgentRunsDeps, 'maxRunningSpawns' | 'control'> {
  maxRunningSpawns?: number;
  runHeartbeatMs?: number;
  /** Where killed, resumed, denial-breaker, budget-breach and breaker-trip signals of runs are recorded. */
  signals?: HealthSignalRecorder;
  /** Told how many runs of a previous process start() marked orphaned (a health signal). */
  onOrphaned?: (count: number) => void;
  /**
   * With replicas (coordination: redis), how often to look again for runs whose instance has gone, in ms; each
   * replica looks, and a run is marked once. Unset: only at start, enough when this is the only process.
   */
  orphanSweepMs?: number;
  /** Stops of run trees sent to and from the other replicas (coordination.runStops). */
  peerStops?: RunControlDeps['peerStops'];
}

export interface RunsModule extends CapabilityModule {
  readonly runs: SubAgentRuns;
  /** RunLifecycle (startRun) for the scheduler and webhooks, DenialBreaker (tripDenialBreaker) for approvals. */
  readonly runControl: RunControl;
  /** Aborts runs in flight and waits until each is recorded; app.ts calls it as soon as shutdown starts. */
  stop(): Promise<void>;
}

export function createRunsModule(deps: RunsModuleDeps): RunsModule {
  const runControl = createRunControl({
    runs: deps.runs,
    events: deps.events,
    instances: deps.instances,
    now: deps.now,
    log: deps.log,
    runHeartbeatMs: deps.runHeartbeatMs ?? DEFAULT_RUN_HEARTBEAT_MS,
    ...(deps.signals === undefined ? {} : { signals: deps.signals }),
    ...(deps.peerStops === undefined ? {} : { peerStops: deps.peerStops }),
  });
  const runs = createSubAgentRuns({
    ...deps,
    control: runControl,
    maxRunningSpawns: deps.maxRunningSpawns ?? DEFAULT_MAX_RUNNING_SPAWNS,
  });
  let sweep: NodeJS.Timeout | undefined;
  return {
    name: 'runs',
    runs,
    runControl,
    methods: [...runMethods(runs), ...controlMethods({ control: runControl, runs: deps.runs, now: deps.now })],
    tools: [spawnTool(runs)],
    hooks: runControl.hooks,
    async start() {
      deps.onOrphaned?.(await runs.recoverOrphanedRuns());
      if (deps.orphanSweepMs === undefined) return;
      sweep = setInterval(() => {
        runs.recoverOrphanedRuns().then(
          (count) => deps.onOrphaned?.(count),
          (error: unknown) => deps.log.warn({ err: error }, 'orphaned-run sweep failed; the next one tries again'),
        );
      }, deps.orphanSweepMs);
      sweep.unref();
    },
    stop: () => {
      clearInterval(sweep);
      return runs.close();
    },
  };
}
export { runMethods } from './methods.js';
export { controlMethods } from './control-methods.js';
