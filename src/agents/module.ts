// The agents capability module: agents.* (admin agent management), the agent model methods and tools.list.
import type { Logger } from 'pino';
import type { MethodModule } from '../rpc/types.js';
import type { ManagedAgentRegistry } from './agent-registry.js';
import { agentMethods } from './methods.js';
import { agentModelMethods, type AgentModelMethodsDeps } from './model-methods.js';
import { toolListMethods, type ListedMcpServers } from './tool-list-methods.js';
import type { ToolRegistry } from './tools/tool-registry.js';

export interface AgentsModuleDeps extends Omit<AgentModelMethodsDeps, 'agents'> {
  agents: ManagedAgentRegistry;
  /** The tools every module registered, so start() can name the ones agents ask for but nobody provides. */
  tools: Pick<ToolRegistry, 'has' | 'names' | 'specs'>;
  /** The MCP servers whose tools tools.list offers. */
  mcp?: ListedMcpServers;
  /** The loaded skills tools.list offers. */
  skills?: () => readonly { name: string; description: string }[];
  log: Logger;
}

export function createAgentsModule(deps: AgentsModuleDeps): MethodModule {
  return {
    name: 'agents',
    methods: [
      ...agentMethods({ agents: deps.agents }),
      ...agentModelMethods(deps),
      ...toolListMethods({
        tools: deps.tools,
        ...(deps.mcp === undefined ? {} : { mcp: deps.mcp }),
        ...(deps.skills === undefined ? {} : { skills: deps.skills }),
      }),
    ],
    start() {
      for (const agent of deps.agents.list()) {
        const unknown = agent.config.tools.filter((name) => !deps.tools.has(name));
        // A source entry (`mcp:<server>`) naming nothing configured is still offered, as a tool that fails loudly.
        const unknownSources = unknown.filter((name) => name.includes(':'));
        const unknownTools = unknown.filter((name) => !name.includes(':'));
        if (unknownTools.length > 0)
          deps.log.warn(
            { agentId: agent.id, tools: unknownTools, available: deps.tools.names() },
            'agent names tools this gateway does not provide; they are left out',
          );
        if (unknownSources.length > 0)
          deps.log.warn(
            { agentId: agent.id, tools: unknownSources },
            'agent names tool sources that are not configured (an MCP server not under mcp.servers); its turns get tools failing with mcp_unavailable',
          );
      }
    },
    // The registry watches the config store; released last among the modules that read it.
    stop: () => deps.agents.close(),
  };
}
