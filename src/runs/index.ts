// Runs: sub-agent runs as a capability module (session.spawn, session.run_status, the session_spawn tool, orphan recovery).
import type { CapabilityModule } from '../capability.js';
import { runMethods } from './methods.js';
import { spawnTool } from './spawn-tool.js';
import { createSubAgentRuns, type SubAgentRuns, type SubAgentRunsDeps } from './sub-agent-runs.js';

export { createSubAgentRuns, type Notify, type RunStatusView, type SpawnResult, type SubAgentRuns, type SubAgentRunsDeps } from './sub-agent-runs.js';

/** Spawned runs allowed in flight at once in one process; beyond it a spawn is refused with rate_limited. */
export const DEFAULT_MAX_RUNNING_SPAWNS = 16;

/** How often an instance heartbeats its running runs, so another instance can tell they are still owned. */
export const DEFAULT_RUN_HEARTBEAT_MS = 30_000;

export interface RunsModuleDeps extends Omit<SubAgentRunsDeps, 'maxRunningSpawns' | 'runHeartbeatMs'> {
  maxRunningSpawns?: number;
  runHeartbeatMs?: number;
  /** Told how many runs of a previous process start() marked orphaned (a health signal). */
  onOrphaned?: (count: number) => void;
}

export interface RunsModule extends CapabilityModule {
  readonly runs: SubAgentRuns;
  /** Aborts runs in flight and waits until each is recorded; app.ts calls it as soon as shutdown starts. */
  stop(): Promise<void>;
}

export function createRunsModule(deps: RunsModuleDeps): RunsModule {
  const runs = createSubAgentRuns({
    ...deps,
    maxRunningSpawns: deps.maxRunningSpawns ?? DEFAULT_MAX_RUNNING_SPAWNS,
    runHeartbeatMs: deps.runHeartbeatMs ?? DEFAULT_RUN_HEARTBEAT_MS,
  });
  return {
    name: 'runs',
    runs,
    methods: runMethods(runs),
    tools: [spawnTool(runs)],
    async start() {
      deps.onOrphaned?.(await runs.recoverOrphanedRuns());
    },
    stop: () => runs.close(),
  };
}
export { runMethods } from './methods.js';
