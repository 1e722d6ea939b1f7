// Which model an agent uses: its primary (provider + model, or model resolved through the catalog) and its fallbacks.
import type { AgentConfig } from '../config/index.js';
import { resolveAgentModel, type ModelRef, type ModelRouter } from '../providers/index.js';

export interface AgentModels {
  /** Undefined when the agent names no model, or one the catalog cannot resolve. */
  primary: ModelRef | undefined;
  /** `fallbackModels` that resolve, in order; unknown names are left out. */
  fallbacks: readonly ModelRef[];
}

/** The one rule for "which model does this agent use", shared by turns, compaction, session.status and /api/agents. */
export function agentModels(agent: AgentConfig, router: Pick<ModelRouter, 'resolve'>): AgentModels {
  return {
    primary: resolveAgentModel(agent, router),
    fallbacks: agent.fallbackModels.flatMap((name) => router.resolve(name) ?? []),
  };
}
