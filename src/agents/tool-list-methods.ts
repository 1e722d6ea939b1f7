// tools.list (admin): what an agent can be given, for the dashboard's picker: built-in tools, the tools of the
// configured MCP servers (as `mcp:<server>/<tool>` entries) and the loaded skills.
import { defineMethod, noParams } from '../rpc/index.js';
import type { ToolRegistry } from './tools/tool-registry.js';

/** The MCP servers as tools.list reads them (src/mcp's McpServers). */
export interface ListedMcpServers {
  names(): string[];
  configOf(server: string): { enabled: boolean };
  listTools(server: string): Promise<readonly { name: string; description?: string }[]>;
}

export interface ToolListDeps {
  tools: Pick<ToolRegistry, 'names' | 'specs'>;
  mcp?: ListedMcpServers;
  /** The loaded skills (src/skills); an agent is given one through its `skills` list. */
  skills?: () => readonly { name: string; description: string }[];
}

export interface ListedTool {
  /** What the agent's `tools` (or, for a skill, `skills`) list holds. */
  name: string;
  /** builtin, mcp:<server> or skill. */
  source: string;
  description: string;
}

export function toolListMethods({ tools, mcp, skills }: ToolListDeps) {
  /** One enabled server's tools; one that cannot be reached lists none (mcp.servers.list says why). */
  async function mcpTools(server: string): Promise<ListedTool[]> {
    if (mcp === undefined || !mcp.configOf(server).enabled) return [];
    const listed = await mcp.listTools(server).catch(() => []);
    return listed.map((tool) => ({
      name: `mcp:${server}/${tool.name}`,
      source: `mcp:${server}`,
      description: tool.description ?? '',
    }));
  }

  return [
    defineMethod({
      name: 'tools.list',
      scope: 'admin',
      summary:
        "The tools an agent can be given, each { name, source, description }: built-in (source builtin), each enabled MCP server's (name mcp:<server>/<tool>, source mcp:<server>; an unreachable server lists none) and the loaded skills (source skill, given through the agent's skills).",
      params: noParams,
      handler: async () => {
        const builtin = tools
          .specs(tools.names())
          .map((spec): ListedTool => ({ name: spec.name, source: 'builtin', description: spec.description }));
        const fromMcp = (await Promise.all((mcp?.names() ?? []).map(mcpTools))).flat();
        const fromSkills = (skills?.() ?? []).map((skill): ListedTool => ({
          name: skill.name,
          source: 'skill',
          description: skill.description,
        }));
        const listed = [...builtin, ...fromMcp, ...fromSkills];
        return { tools: listed, count: listed.length };
      },
    }),
  ];
}
