// The mcp capability module: the connections to mcp.servers (hot-applied), the `mcp:` tool source for agents' turns,
// a health signal per server failure, the mcp.* admin methods, and every connection closed on stop.
import type { Logger } from 'pino';
import type { ToolSource } from '../agents/index.js';
import type { CapabilityModule } from '../capability.js';
import type { ConfigStore } from '../config/index.js';
import { SIGNAL_KIND, type HealthSignalRecorder } from '../obs/index.js';
import { mcpMethods } from './methods.js';
import { createMcpServers, type McpServers } from './mcp-servers.js';
import { createMcpToolSource } from './mcp-tool-source.js';

/** The `health` signal code of a server's failure; fleet health reads it back (src/obs/fleet). */
export const mcpUnavailableCode = (server: string) => `mcp_unavailable:${server}`;

export interface McpModuleDeps {
  /** The live config: mcp.servers and mcp.maxResultBytes are applied on every change. */
  config: Pick<ConfigStore, 'get' | 'onChange'>;
  signals: HealthSignalRecorder;
  now: () => number;
  /** The reconnect backoff's jitter, in [0, 1); Math.random when absent. */
  random?: () => number;
  log: Logger;
}

export interface McpModule extends CapabilityModule {
  /** The connections to the configured servers (their tools, calls and states). */
  readonly servers: McpServers;
  /** What the tool registry resolves agents' `mcp:` entries with (registered under the prefix `mcp`). */
  readonly toolSource: ToolSource;
}

export function createMcpModule(deps: McpModuleDeps): McpModule {
  const { config, signals, now, log } = deps;
  const servers = createMcpServers({
    servers: config.get().mcp.servers,
    maxResultBytes: () => config.get().mcp.maxResultBytes,
    now,
    ...(deps.random === undefined ? {} : { random: deps.random }),
    onFailure(server, message) {
      log.warn({ server, error: message }, 'MCP server unavailable; agents listing it get a failing tool');
      signals.record({
        kind: SIGNAL_KIND.health,
        severity: 'warning',
        data: { code: mcpUnavailableCode(server), server },
      });
    },
  });
  let unsubscribe = (): void => {};
  return {
    name: 'mcp',
    servers,
    toolSource: createMcpToolSource(servers),
    methods: mcpMethods({ servers, now }),
    start() {
      unsubscribe = config.onChange((change) => {
        if (!change.sections.includes('mcp')) return;
        servers.apply(change.config.mcp.servers).catch((error: unknown) => {
          log.error({ err: error }, 'closing the MCP servers a config change removed failed');
        });
      });
    },
    async stop() {
      unsubscribe();
      await servers.close();
    },
  };
}
