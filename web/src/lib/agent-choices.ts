// What an agent form offers to pick from: configured providers, each one's models, and the tools agents may list
// (the gateway's tools the configured agents use, each MCP server whole and its tools one by one).
import { call } from './rpc';

export interface AgentChoices {
  providers: string[];
  /** Catalog models by provider. */
  models: Record<string, string[]>;
  tools: string[];
}

/** A server that cannot be reached gives no tools here; the form still offers the server as a whole. */
async function mcpTools(): Promise<string[]> {
  try {
    const [servers, listed] = await Promise.all([call('mcp.servers.list'), call('mcp.tools.list')]);
    return [
      ...servers.servers.map((server) => `mcp:${server.name}`),
      ...listed.tools.map((tool) => `mcp:${tool.server}/${tool.name}`),
    ];
  } catch {
    return [];
  }
}

export async function loadAgentChoices(): Promise<AgentChoices> {
  const [providerList, catalog, agents, mcp] = await Promise.all([
    call('models.list_providers'),
    call('models.list'),
    call('config.read', { section: 'agents' }),
    mcpTools(),
  ]);
  const models: Record<string, string[]> = {};
  for (const entry of catalog) (models[entry.provider] ??= []).push(entry.modelId);
  const used = new Set<string>();
  if (typeof agents === 'object' && agents !== null)
    for (const agent of Object.values(agents))
      if (typeof agent === 'object' && agent !== null && 'tools' in agent && Array.isArray(agent.tools))
        for (const tool of agent.tools) if (typeof tool === 'string' && !tool.startsWith('mcp:')) used.add(tool);
  return { providers: providerList.providers, models, tools: [...[...used].sort(), ...mcp] };
}
