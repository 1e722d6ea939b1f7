// One connection to an MCP server: its transport (stdio child or Streamable HTTP), the SDK client, the allowed tools,
// and how the SDK's errors read in ours.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerConfig } from '../config/index.js';
import { mcpSdk } from './mcp-sdk-loader.js';
import { followStderr, type StderrRing } from './stderr-ring.js';

/** Pages of tools/list read at most from one server; a server paging forever is cut off there. */
const MAX_TOOL_PAGES = 50;
/** Characters of a server's own error message kept in ours; the rest is cut. */
export const MAX_REASON_CHARS = 300;

export interface McpTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface McpConnection {
  client: Client;
  tools: McpTool[];
}

export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, MAX_REASON_CHARS);
  const { cause } = error;
  const causeText = cause instanceof Error ? `: ${cause.message}` : '';
  return `${error.message}${causeText}`.slice(0, MAX_REASON_CHARS);
}

export function isTimeout(error: unknown): boolean {
  const { McpError, ErrorCode } = mcpSdk();
  return error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout);
}

/**
 * A reply that arrived but is malformed: a body that is not JSON (SyntaxError), or JSON that is not the result the
 * SDK expects (a zod error, whose class name differs between zod versions, so it is known by its `issues`).
 */
function isMalformedReply(error: unknown): boolean {
  return error instanceof SyntaxError || (error instanceof Error && 'issues' in error && Array.isArray(error.issues));
}

/**
 * Whether a request failed because the server cannot be reached any more: the connection closed, or the transport
 * itself threw (an HTTP server that refuses connections). A server's own JSON-RPC error (McpError) or a malformed
 * reply is not: that call failed, the connection stands.
 */
export function isConnectionLoss(error: unknown): boolean {
  const { McpError, ErrorCode } = mcpSdk();
  if (error instanceof McpError) return error.code === Number(ErrorCode.ConnectionClosed);
  return !isMalformedReply(error);
}

/** The transport for `config`; a stdio child's stderr is piped into a capped ring (never inherited). */
export function transportOf(config: McpServerConfig): {
  transport: StdioClientTransport | StreamableHTTPClientTransport;
  stderr?: StderrRing;
} {
  if (config.transport === 'http') {
    return {
      transport: new (mcpSdk().StreamableHTTPClientTransport)(new URL(config.url), {
        requestInit: { headers: config.headers },
      }),
    };
  }
  const transport = new (mcpSdk().StdioClientTransport)({
    command: config.command,
    args: config.args,
    env: config.env,
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    stderr: 'pipe',
  });
  return { transport, stderr: followStderr(transport.stderr) };
}

/** The server's tools through its allow-list, every page up to MAX_TOOL_PAGES. */
export async function listAllowed(config: McpServerConfig, client: Client): Promise<McpTool[]> {
  const allowed = config.tools === undefined ? undefined : new Set(config.tools);
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
    const listed = await client.listTools(cursor === undefined ? undefined : { cursor }, {
      timeout: config.timeoutMs,
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

/**
 * Connects a client over `transport` and lists the allowed tools; on failure the client is closed (a stdio child
 * ended) and the error thrown as it came. `onToolsChanged` is told of each notifications/tools/list_changed.
 */
export async function openConnection(
  config: McpServerConfig,
  transport: StdioClientTransport | StreamableHTTPClientTransport,
  onToolsChanged?: () => void,
): Promise<McpConnection> {
  const client = new (mcpSdk().Client)(
    { name: 'agent-gateway', version: '1' },
    onToolsChanged === undefined
      ? {}
      : { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => onToolsChanged() } } },
  );
  try {
    await client.connect(transport, { timeout: config.timeoutMs });
    return { client, tools: await listAllowed(config, client) };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}
