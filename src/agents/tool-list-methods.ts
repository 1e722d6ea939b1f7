// tools.list (admin): what an agent can be given, for the dashboard's picker: built-in tools, the tools of the
// configured MCP servers (as `mcp:<server>/<tool>` entries) and the loaded skills.
import { defineMethod, noParams } from '../rpc/index.js';
import type { ToolRegistry } from './tools/tool-registry.js';

/** The MCP servers as tools.list reads them (src/mcp's McpServers). */
export interface ListedMcpServers {
  names(): string[];
  configOf(server: string): { enabled: boolean };
  status(): readonly { name: string; state: string }[];
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

/** How long tools.list waits for one MCP server's tools (a server still starting or retrying), in ms. */
export const MCP_LIST_WAIT_MS = 2_000;

/** The tools, or none when listing fails or takes longer than `waitMs`. */
async function listedWithin<T>(listing: Promise<readonly T[]>, waitMs: number): Promise<readonly T[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<readonly T[]>((resolve) => {
    timer = setTimeout(() => resolve([]), waitMs);
    timer.unref();
  });
  try {
    return await Promise.race([listing.catch(() => []), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function toolListMethods({ tools, mcp, skills }: ToolListDeps) {
  /** One enabled server whole (`mcp:<server>`, all its tools) and each of its tools; one that cannot be reached lists
   * only the whole entry (mcp.servers.list says why). */
  async function mcpTools(server: string): Promise<ListedTool[]> {
    if (mcp === undefined || !mcp.configOf(server).enabled) return [];
    // A server whose last attempt failed is not waited for again here: its tools are unknown until it recovers.
    const isFailed = mcp.status().some((entry) => entry.name === server && entry.state === 'failed');
    const listed = isFailed ? [] : await listedWithin(mcp.listTools(server), MCP_LIST_WAIT_MS);
    const whole = { name: `mcp:${server}`, source: `mcp:${server}`, description: `Every tool of MCP server ${server}` };
    return [
      whole,
      ...listed.map((tool) => ({
        name: `mcp:${server}/${tool.name}`,
        source: `mcp:${server}`,
        description: tool.description ?? '',
      })),
    ];
  }

  return [
    defineMethod({
      name: 'tools.list',
      scope: 'admin',
      summary:
        "The tools an agent can be given, each { name, source, description }: built-in (source builtin), each enabled MCP server whole (name mcp:<server>) and its tools (mcp:<server>/<tool>), source mcp:<server>, a server failed or slower than 2 s only whole and the loaded skills (source skill, given through the agent's skills).",
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
