// The mcp config section: MCP servers whose tools agents may use (src/mcp), over stdio or Streamable HTTP.
import { z } from 'zod';
import { durationMs } from './schema-units.js';

const common = {
  /** How long connecting, listing tools or one tool call may take before it fails with a bounded error. */
  timeoutMs: durationMs(1).default(30_000),
  /** Tool names agents may use from this server; absent: every tool it lists. */
  tools: z.array(z.string().min(1).max(128)).max(1_000).optional(),
  /** false: the server is never started and shows as `disabled`. */
  enabled: z.boolean().default(true),
};

const stdioServerSchema = z.strictObject({
  transport: z.literal('stdio'),
  /** The executable the gateway starts as its own child; its stderr is captured, never inherited. */
  command: z.string().min(1).max(4_096),
  args: z.array(z.string().max(4_096)).max(1_000).default([]),
  /** The child's environment on top of the SDK's safe defaults (PATH, HOME, …); the gateway's own is not passed. */
  env: z.record(z.string().max(256), z.string().max(65_536)).default({}),
  cwd: z.string().min(1).max(4_096).optional(),
  ...common,
});

const httpServerSchema = z.strictObject({
  transport: z.literal('http'),
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(8_192),
  headers: z.record(z.string().min(1).max(256), z.string().max(8_192)).default({}),
  ...common,
});

const serverName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'server names use letters, digits, underscore or hyphen');

const mcpServerConfigSchema = z.discriminatedUnion('transport', [stdioServerSchema, httpServerSchema]);

/** The gateway as an MCP server at /mcp (src/mcp/server): what it offers MCP clients and how many sessions it keeps. */
const mcpGatewayServerSchema = z.strictObject({
  /** Names of the gateway's own tools (e.g. `current_time`) offered beside the `ask_<agentId>` tools; default none. */
  exposeTools: z.array(z.string().min(1).max(128)).max(1_000).default([]),
  /** Live MCP sessions one token may hold; opening one more ends that token's least recently used session. */
  maxSessionsPerToken: z.number().int().min(1).max(10_000).default(16),
  /** Live MCP sessions in all; past it a new session is refused with 503 until one ends or expires. */
  maxSessions: z.number().int().min(1).max(100_000).default(1_000),
  /** A session with no request for this long is ended; its client must initialize again. */
  sessionIdleMs: durationMs(1).default(30 * 60_000),
});

/** MCP servers (src/mcp): started on first use and kept; a server that cannot be reached shows `failed` with its error. */
export const mcpConfigSchema = z.strictObject({
  servers: z.record(serverName, mcpServerConfigSchema).default({}),
  /** Bytes one tool result may take (as JSON) before it becomes a bounded tool error without its content (1 MiB). */
  maxResultBytes: z
    .number()
    .int()
    .min(1_024)
    .max(64 * 1_048_576)
    .default(1_048_576),
  server: mcpGatewayServerSchema.prefault({}),
});

export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;
