// What an agent form offers to pick from: the configured providers (providers.list), each one's models, and what an
// agent can be given (tools.list: built-in tools, each MCP server whole and its tools, skills), with descriptions.
import { call } from './rpc';

export interface ToolChoice {
  /** What the agent's `tools` list (or `skills` list, for a skill) holds. */
  name: string;
  /** builtin, mcp:<server> or skill. */
  source: string;
  description: string;
}

export interface AgentChoices {
  providers: string[];
  /** Configured models by provider. */
  models: Record<string, string[]>;
  tools: ToolChoice[];
}

/** The providers and their models: answered at once, so the pickers do not wait for the MCP servers. */
export async function loadProviderChoices(): Promise<Pick<AgentChoices, 'providers' | 'models'>> {
  const { providers } = await call('providers.list');
  const models: Record<string, string[]> = {};
  for (const provider of providers) models[provider.name] = provider.models.map((model) => model.id);
  return { providers: providers.map((provider) => provider.name), models };
}

/** What an agent can be given; MCP servers still starting may take a few seconds. */
export async function loadToolChoices(): Promise<ToolChoice[]> {
  return (await call('tools.list')).tools;
}

/** Each configured MCP server whole (`mcp:<server>`), at once: tools.list may wait a few seconds for a starting server. */
export async function loadServerChoices(): Promise<ToolChoice[]> {
  try {
    const { servers } = await call('mcp.servers.list');
    return servers.map((server) => ({
      name: `mcp:${server.name}`,
      source: `mcp:${server.name}`,
      description: `Every tool of MCP server ${server.name}`,
    }));
  } catch {
    return [];
  }
}

/** The tools.list answer once it is in, else the servers whole; each name once, tools.list's order first. */
export function mergeToolChoices(
  listed: readonly ToolChoice[] | undefined,
  servers: readonly ToolChoice[],
): ToolChoice[] {
  const all = [...(listed ?? []), ...servers];
  return all.filter((choice, index) => all.findIndex((other) => other.name === choice.name) === index);
}
