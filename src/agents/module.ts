// The agents capability module: agents.* (admin agent management) and the agent model methods.
import type { CapabilityModule } from '../capability.js';
import type { ManagedAgentRegistry } from './agent-registry.js';
import { agentMethods } from './methods.js';
import { agentModelMethods, type AgentModelMethodsDeps } from './model-methods.js';

export interface AgentsModuleDeps extends Omit<AgentModelMethodsDeps, 'agents'> {
  agents: ManagedAgentRegistry;
}

export function createAgentsModule(deps: AgentsModuleDeps): CapabilityModule {
  return {
    name: 'agents',
    methods: [...agentMethods({ agents: deps.agents }), ...agentModelMethods(deps)],
    // The registry watches the config store; released last among the modules that read it.
    stop: () => deps.agents.close(),
  };
}
