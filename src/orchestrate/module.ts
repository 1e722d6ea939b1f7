// The orchestrate capability module: the orchestrate tool, its service, a script child pre-started when an agent may
// orchestrate, and killing every script child at shutdown.
import type { Logger } from 'pino';
import type { AgentRegistry, ToolRegistry } from '../agents/index.js';
import type { CapabilityModule } from '../capability.js';
import type { OrchestrateConfig } from '../config/index.js';
import type { HealthSignalRecorder, Recorder } from '../obs/index.js';
import type { RunControl } from '../runs/index.js';
import type { TurnHooks } from '../turns/types.js';
import { createOrchestrateService, type OrchestrateService } from './orchestrate-service.js';
import { killAllScriptRuns, prewarmScriptChildren, runScript } from './sandbox/index.js';
import { orchestrateTool } from './tool.js';

export interface OrchestrateModuleDeps {
  config: () => OrchestrateConfig;
  agents: Pick<AgentRegistry, 'get' | 'list'>;
  /** The shared tool registry: a script's tools are the agent's own, resolved as a turn resolves them. */
  tools: Pick<ToolRegistry, 'forTurn'>;
  /** The shared turn hooks: a script's calls pass the same beforeTool gates (approvals) as the turn's. */
  hooks: Pick<TurnHooks, 'beforeTool'>;
  runControl: Pick<RunControl, 'startRun' | 'tripDenialBreaker' | 'onStop'>;
  recorder: Recorder;
  signals?: HealthSignalRecorder;
  now: () => number;
  newId: () => string;
  log: Logger;
}

export interface OrchestrateModule extends CapabilityModule {
  readonly orchestrate: OrchestrateService;
}

export function createOrchestrateModule(deps: OrchestrateModuleDeps): OrchestrateModule {
  const orchestrate = createOrchestrateService({ ...deps, runScript });
  return {
    name: 'orchestrate',
    orchestrate,
    tools: [orchestrateTool(orchestrate)],
    start() {
      // Starting node and QuickJS takes far longer than a run may take to reach its first tool call; the child is
      // ready in the background (a failed start shows as the first run's spawn_fail).
      if (deps.agents.list().some((agent) => agent.config.tools.includes('orchestrate'))) void prewarmScriptChildren(1);
    },
    stop: () => {
      orchestrate.close();
      killAllScriptRuns();
    },
  };
}
