// Connections to the configured MCP servers: started on first use and kept, tools listed through the allow-list,
// calls bounded in time and size, and each server's state (connecting, ready, failed, disabled) with its last error.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
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
import { followStderr, type StderrRing } from './stderr-ring.js';

/** Pages of tools/list read at most from one server; a server paging forever is cut off there. */
const MAX_TOOL_PAGES = 50;
/** Characters of a server's own error message kept in ours; the rest is cut. */
const MAX_REASON_CHARS = 300;

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

export interface McpTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface McpToolResult {
  content: CallToolResult['content'];
  isError: boolean;
  structuredContent?: Record<string, unknown>;
}

export interface McpServersDeps {
  /** The mcp.servers section, parsed. */
  servers: Record<string, McpServerConfig>;
  /** Bytes a tool result may take as JSON; a larger one becomes an error without its content. */
  maxResultBytes: number;
  now: () => number;
}

export interface McpServers {
  /** The server's tools, filtered by its allow-list; connects the server first if needed. */
  listTools(server: string): Promise<McpTool[]>;
  callTool(server: string, tool: string, args: Record<string, unknown>): Promise<McpToolResult>;
  status(): McpServerStatus[];
  /** Closes every connection; stdio children are ended (SIGTERM, then SIGKILL) and awaited. */
  close(): Promise<void>;
}

interface Entry {
  name: string;
  config: McpServerConfig;
  state: McpServerState;
  lastError?: string;
  connectedAt?: number;
  stderr?: StderrRing;
  client?: Client;
  tools?: McpTool[];
  connecting?: Promise<Client>;
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, MAX_REASON_CHARS);
  const { cause } = error;
  const causeText = cause instanceof Error ? `: ${cause.message}` : '';
  return `${error.message}${causeText}`.slice(0, MAX_REASON_CHARS);
}

function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout);
}

function isConnectionLoss(error: unknown): boolean {
  return error instanceof McpError && error.code === Number(ErrorCode.ConnectionClosed);
}

export function createMcpServers(deps: McpServersDeps): McpServers {
  let closed = false;
  const entries = new Map<string, Entry>(
    Object.entries(deps.servers).map(([name, config]) => [
      name,
      { name, config, state: config.enabled ? 'connecting' : 'disabled' },
    ]),
  );

  function entryOf(server: string): Entry {
    const entry = entries.get(server);
    if (entry === undefined) throw mcpServerNotFound(server);
    if (!entry.config.enabled) throw mcpServerDisabled(server);
    return entry;
  }

  function transportOf(entry: Entry): StdioClientTransport | StreamableHTTPClientTransport {
    const { config } = entry;
    if (config.transport === 'http') {
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    }
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      stderr: 'pipe',
    });
    entry.stderr = followStderr(transport.stderr);
    return transport;
  }

  function fail(entry: Entry, reason: string) {
    const error = mcpServerUnavailable(entry.name, reason);
    entry.state = 'failed';
    entry.lastError = error.message;
    entry.client = undefined;
    entry.tools = undefined;
    return error;
  }

  async function listAllowed(entry: Entry, client: Client): Promise<McpTool[]> {
    const allowed = entry.config.tools === undefined ? undefined : new Set(entry.config.tools);
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
      const listed = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: entry.config.timeoutMs,
      });
      for (const tool of listed.tools) {
        if (allowed !== undefined && !allowed.has(tool.name)) continue;
        tools.push({
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          inputSchema: tool.inputSchema,
        });
      }
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  async function open(entry: Entry): Promise<Client> {
    entry.state = 'connecting';
    const client = new Client({ name: 'agent-gateway', version: '1' });
    try {
      await client.connect(transportOf(entry), { timeout: entry.config.timeoutMs });
      const tools = await listAllowed(entry, client);
      if (closed) throw new Error('the gateway is shutting down');
      entry.tools = tools;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw fail(entry, isTimeout(error) ? `no answer within ${entry.config.timeoutMs} ms` : reasonOf(error));
    }
    // A child that exits or a connection that drops marks the server failed; its next use connects again.
    client.onclose = () => {
      if (entry.client === client && !closed) fail(entry, 'the connection closed');
    };
    entry.client = client;
    entry.state = 'ready';
    entry.connectedAt = deps.now();
    delete entry.lastError;
    return client;
  }

  function connect(entry: Entry): Promise<Client> {
    if (closed) return Promise.reject(mcpServerUnavailable(entry.name, 'the gateway is shutting down'));
    if (entry.client !== undefined) return Promise.resolve(entry.client);
    entry.connecting ??= open(entry).finally(() => {
      entry.connecting = undefined;
    });
    return entry.connecting;
  }

  async function callTool(server: string, tool: string, args: Record<string, unknown>): Promise<McpToolResult> {
    const entry = entryOf(server);
    const client = await connect(entry);
    if (!entry.tools?.some((listed) => listed.name === tool)) throw mcpToolNotFound(server, tool);
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await client.callTool({ name: tool, arguments: args }, CallToolResultSchema, {
        timeout: entry.config.timeoutMs,
      });
    } catch (error) {
      if (isTimeout(error)) throw mcpToolTimedOut(server, tool, entry.config.timeoutMs);
      if (isConnectionLoss(error)) throw fail(entry, reasonOf(error));
      throw mcpToolFailed(server, tool, reasonOf(error));
    }
    const bytes = Buffer.byteLength(JSON.stringify(result));
    if (bytes > deps.maxResultBytes) throw mcpToolResultTooLarge(server, tool, bytes, deps.maxResultBytes);
    const parsed = CallToolResultSchema.parse(result);
    return {
      content: parsed.content,
      isError: parsed.isError === true,
      ...(parsed.structuredContent === undefined ? {} : { structuredContent: parsed.structuredContent }),
    };
  }

  return {
    async listTools(server) {
      const entry = entryOf(server);
      await connect(entry);
      return entry.tools ?? [];
    },
    callTool,
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
    async close() {
      closed = true;
      await Promise.all(
        [...entries.values()].map(async (entry) => {
          await entry.connecting?.catch(() => undefined);
          const { client } = entry;
          entry.client = undefined;
          await client?.close();
        }),
      );
    },
  };
}
