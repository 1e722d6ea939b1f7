// mcp.* methods (admin): the configured MCP servers with their state, a fresh probe of one, and their tools.
import { z } from 'zod';
import { defineMethod, noParams } from '../rpc/index.js';
import { probeServer } from './mcp-probe.js';
import type { McpServers, McpTool } from './mcp-servers.js';

const serverName = z.string().min(1).max(64);

export interface McpMethodsDeps {
  servers: McpServers;
  now: () => number;
}

export function mcpMethods({ servers, now }: McpMethodsDeps) {
  /** The server's tools, or none when it is disabled or cannot be reached (mcp.servers.list shows why). */
  async function toolsOrNone(server: string): Promise<McpTool[]> {
    return servers.listTools(server).catch(() => []);
  }

  return [
    defineMethod({
      name: 'mcp.servers.list',
      scope: 'admin',
      summary:
        "The servers under mcp.servers: transport, state (connecting, ready, failed, disabled), tool count, last error, connectedAt (epoch ms) and a stdio child's stderr tail.",
      params: noParams,
      handler: () => ({ servers: servers.status() }),
    }),
    defineMethod({
      name: 'mcp.servers.test',
      scope: 'admin',
      summary:
        'Connects to one server afresh (apart from the kept connection), lists its tools and closes; unknown name: not_found.',
      params: z.strictObject({ name: serverName }),
      handler: ({ name }) => probeServer(servers.configOf(name), now),
    }),
    defineMethod({
      name: 'mcp.tools.list',
      scope: 'admin',
      summary:
        'The tools agents may use from one server (connecting it if needed; failures are errors) or from every enabled server (ones that fail are left out).',
      params: z.strictObject({ server: serverName.optional() }),
      handler: async ({ server }) => {
        const names = server === undefined ? servers.names() : [server];
        const listed = await Promise.all(
          names.map(async (name) => ({
            name,
            tools:
              server === undefined
                ? servers.configOf(name).enabled
                  ? await toolsOrNone(name)
                  : []
                : await servers.listTools(name),
          })),
        );
        return {
          tools: listed.flatMap(({ name, tools }) =>
            tools.map((tool) => ({
              server: name,
              name: tool.name,
              description: tool.description ?? '',
              inputSchema: tool.inputSchema,
            })),
          ),
        };
      },
    }),
  ];
}
