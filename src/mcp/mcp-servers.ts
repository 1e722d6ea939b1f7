// Connections to the configured MCP servers: started on first use and kept, tools listed through the allow-list and
// refreshed on list_changed, calls bounded in time and size, a failed server retried after a jittered backoff, the
// set of servers replaced live (apply), and each server's state (connecting, ready, failed, disabled) with its error.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isDeepStrictEqual } from 'node:util';
import type { McpServerConfig } from '../config/index.js';
import {
  mcpServerDisabled,
  mcpServerNotFound,
  mcpServerUnavailable,
  mcpToolFailed,
  mcpToolNotFound,
  mcpToolResultTooLarge,
  mcpToolTimedOut,
} from '../errors.js';
import { backoffMs } from './backoff.js';
import {
  isConnectionLoss,
  isTimeout,
  listAllowed,
  openConnection,
  reasonOf,
  transportOf,
  type McpTool,
} from './mcp-connection.js';
import { loadMcpSdk, mcpSdk } from './mcp-sdk-loader.js';
import type { StderrRing } from './stderr-ring.js';

export type { McpTool } from './mcp-connection.js';

export type McpServerState = 'connecting' | 'ready' | 'failed' | 'disabled';

export interface McpServerStatus {
  name: string;
  transport: McpServerConfig['transport'];
  state: McpServerState;
  /** Tools agents may use from it (after the allow-list); 0 until it is ready. */
  tools: number;
  lastError?: string;
  connectedAt?: number;
  /** stdio only, once started: the last characters its process wrote to stderr. */
  stderr?: string;
}

export interface McpToolResult {
  content: CallToolResult['content'];
  isError: boolean;
  structuredContent?: Record<string, unknown>;
}

export interface McpServersDeps {
  /** The mcp.servers section, parsed. */
  servers: Record<string, McpServerConfig>;
  /** Bytes a tool result may take as JSON (read at each call); a larger one becomes an error without its content. */
  maxResultBytes: number | (() => number);
  now: () => number;
  /** The backoff's jitter, in [0, 1); Math.random when absent. */
  random?: () => number;
  /** Told each time a server fails (a connect that failed, a connection that dropped), with the error's message. */
  onFailure?: (server: string, message: string) => void;
}

export interface McpServers {
  /** The configured server names, in config order. */
  names(): string[];
  /** The server's tools, filtered by its allow-list; connects the server first if needed. */
  listTools(server: string): Promise<McpTool[]>;
  callTool(server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpToolResult>;
  status(): McpServerStatus[];
  /** The server's config as running now; unknown name: not_found. */
  configOf(server: string): McpServerConfig;
  /**
   * Replaces the set of servers: an added one is usable at once, a removed one is closed (its child ended) and a
   * changed one closed and connected again with its new config on next use. Unchanged servers keep their connection.
   */
  apply(servers: Record<string, McpServerConfig>): Promise<void>;
  /** Closes every connection; stdio children are ended (SIGTERM, then SIGKILL) and awaited. */
  close(): Promise<void>;
}

interface Entry {
  name: string;
  config: McpServerConfig;
  state: McpServerState;
  lastError?: string;
  /** The reason of the last failed connect, given again while its backoff lasts. */
  lastReason?: string;
  connectedAt?: number;
  stderr?: StderrRing;
  client?: Client;
  tools?: McpTool[];
  /** Set by notifications/tools/list_changed: the next listing asks the server again. */
  isStale?: boolean;
  connecting?: Promise<Client>;
  /** Failed connects in a row, and when the next one may start (epoch ms). */
  failures: number;
  retryAt?: number;
  /** Removed or replaced by apply(): a connect finishing late closes what it opened. */
  isRetired?: boolean;
}

const entryFor = (name: string, config: McpServerConfig): Entry => ({
  name,
  config,
  state: config.enabled ? 'connecting' : 'disabled',
  failures: 0,
});

async function closeEntry(entry: Entry): Promise<void> {
  entry.isRetired = true;
  await entry.connecting?.catch(() => undefined);
  const { client } = entry;
  entry.client = undefined;
  await client?.close();
}

export function createMcpServers(deps: McpServersDeps): McpServers {
  const { now, random = Math.random } = deps;
  let closed = false;
  let entries = new Map<string, Entry>(
    Object.entries(deps.servers).map(([name, config]) => [name, entryFor(name, config)]),
  );

  function configured(server: string): Entry {
    const entry = entries.get(server);
    if (entry === undefined) throw mcpServerNotFound(server);
    return entry;
  }

  function entryOf(server: string): Entry {
    const entry = configured(server);
    if (!entry.config.enabled) throw mcpServerDisabled(server);
    return entry;
  }

  function fail(entry: Entry, reason: string) {
    const error = mcpServerUnavailable(entry.name, reason);
    entry.state = 'failed';
    entry.lastError = error.message;
    entry.client = undefined;
    entry.tools = undefined;
    // A server removed from config or a gateway shutting down is not a failure worth a health signal.
    if (!closed && entry.isRetired !== true) deps.onFailure?.(entry.name, error.message);
    return error;
  }

  async function open(entry: Entry): Promise<Client> {
    entry.state = 'connecting';
    await loadMcpSdk();
    const { transport, stderr } = transportOf(entry.config);
    if (stderr !== undefined) entry.stderr = stderr;
    let client: Client;
    try {
      const connection = await openConnection(entry.config, transport, () => {
        entry.isStale = true;
      });
      client = connection.client;
      if (closed || entry.isRetired) {
        await client.close().catch(() => undefined);
        throw new Error(closed ? 'the gateway is shutting down' : 'the server was removed or changed in config');
      }
      entry.tools = connection.tools;
    } catch (error) {
      const reason = isTimeout(error) ? `no answer within ${entry.config.timeoutMs} ms` : reasonOf(error);
      entry.failures += 1;
      entry.retryAt = now() + backoffMs(entry.failures, random);
      entry.lastReason = reason;
      throw fail(entry, reason);
    }
    // A child that exits or a connection that drops marks the server failed; its next use connects again at once.
    client.onclose = () => {
      if (entry.client === client && !closed) fail(entry, 'the connection closed');
    };
    entry.client = client;
    entry.state = 'ready';
    entry.connectedAt = now();
    entry.failures = 0;
    entry.isStale = false;
    delete entry.retryAt;
    delete entry.lastError;
    delete entry.lastReason;
    return client;
  }

  function connect(entry: Entry): Promise<Client> {
    if (closed) return Promise.reject(mcpServerUnavailable(entry.name, 'the gateway is shutting down'));
    if (entry.client !== undefined) return Promise.resolve(entry.client);
    // Within a failed server's backoff its turns get the last error at once; the server is not asked again.
    const waitMs = entry.retryAt === undefined ? 0 : entry.retryAt - now();
    if (waitMs > 0 && entry.connecting === undefined)
      return Promise.reject(mcpServerUnavailable(entry.name, entry.lastReason ?? 'it failed', waitMs));
    entry.connecting ??= open(entry).finally(() => {
      entry.connecting = undefined;
    });
    return entry.connecting;
  }

  async function toolsOf(entry: Entry): Promise<McpTool[]> {
    const client = await connect(entry);
    if (entry.isStale === true) {
      entry.isStale = false;
      try {
        entry.tools = await listAllowed(entry.config, client);
      } catch (error) {
        throw isConnectionLoss(error)
          ? fail(entry, reasonOf(error))
          : mcpServerUnavailable(entry.name, reasonOf(error));
      }
    }
    return entry.tools ?? [];
  }

  async function callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<McpToolResult> {
    const entry = entryOf(server);
    const client = await connect(entry);
    if (!entry.tools?.some((listed) => listed.name === tool)) throw mcpToolNotFound(server, tool);
    const { CallToolResultSchema } = mcpSdk();
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await client.callTool({ name: tool, arguments: args }, CallToolResultSchema, {
        timeout: entry.config.timeoutMs,
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      if (isTimeout(error)) throw mcpToolTimedOut(server, tool, entry.config.timeoutMs);
      if (isConnectionLoss(error)) throw fail(entry, reasonOf(error));
      throw mcpToolFailed(server, tool, reasonOf(error));
    }
    const bytes = Buffer.byteLength(JSON.stringify(result));
    const maxBytes = typeof deps.maxResultBytes === 'number' ? deps.maxResultBytes : deps.maxResultBytes();
    if (bytes > maxBytes) throw mcpToolResultTooLarge(server, tool, bytes, maxBytes);
    const parsed = CallToolResultSchema.parse(result);
    return {
      content: parsed.content,
      isError: parsed.isError === true,
      ...(parsed.structuredContent === undefined ? {} : { structuredContent: parsed.structuredContent }),
    };
  }

  return {
    names: () => [...entries.keys()],
    listTools: async (server) => toolsOf(entryOf(server)),
    callTool,
    configOf: (server) => configured(server).config,
    status() {
      return [...entries.values()].map((entry) => ({
        name: entry.name,
        transport: entry.config.transport,
        state: entry.state,
        tools: entry.tools?.length ?? 0,
        ...(entry.lastError === undefined ? {} : { lastError: entry.lastError }),
        ...(entry.connectedAt === undefined ? {} : { connectedAt: entry.connectedAt }),
        ...(entry.stderr === undefined ? {} : { stderr: entry.stderr.text() }),
      }));
    },
    async apply(servers) {
      const previous = entries;
      const next = new Map<string, Entry>();
      const retired: Entry[] = [];
      for (const [name, config] of Object.entries(servers)) {
        const kept = previous.get(name);
        if (kept !== undefined && isDeepStrictEqual(kept.config, config)) next.set(name, kept);
        else next.set(name, entryFor(name, config));
      }
      for (const [name, entry] of previous) if (next.get(name) !== entry) retired.push(entry);
      entries = next;
      await Promise.all(retired.map(closeEntry));
    },
    async close() {
      closed = true;
      await Promise.all([...entries.values()].map(closeEntry));
    },
  };
}
