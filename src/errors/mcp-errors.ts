// Errors of MCP servers used as agent tools (src/mcp): unknown, disabled or unreachable servers and bounded tool replies.
import { GatewayError, notFound } from './gateway-error.js';

/** A server name that is not under mcp.servers. */
export const mcpServerNotFound = (server: string) =>
  notFound(`No MCP server named ${server} in mcp.servers`, { param: 'server' });

/** A tool the server does not list or its mcp.servers.<name>.tools allow-list leaves out. */
export const mcpToolNotFound = (server: string, tool: string) =>
  notFound(`MCP server ${server} offers no tool ${tool} (or mcp.servers.${server}.tools leaves it out)`, {
    param: 'tool',
  });

/** A server with enabled: false: it is never started. */
export const mcpServerDisabled = (server: string) =>
  new GatewayError('unavailable', `MCP server ${server} is disabled (mcp.servers.${server}.enabled: false)`, {
    server,
    toolErrorKind: 'mcp_unavailable',
  });

/**
 * A server that could not be started or reached, or whose connection closed: the reason is part of the message.
 * `retryAfterMs`: how long until the next attempt to connect (its backoff), when one is pending.
 */
export const mcpServerUnavailable = (server: string, reason: string, retryAfterMs?: number) =>
  new GatewayError('unavailable', `MCP server ${server} is unavailable: ${reason}`, {
    server,
    toolErrorKind: 'mcp_unavailable',
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

/** An agent's tools list names `mcp:<server>` of a server that is not under mcp.servers: its turns get a failing tool. */
export const mcpServerNotConfigured = (server: string) =>
  mcpServerUnavailable(server, `no server named ${server} is configured under mcp.servers`);

/** A tool named in an agent's list (`mcp:<server>/<tool>`) that the server does not offer. */
export const mcpToolNotOffered = (server: string, tool: string) =>
  new GatewayError(
    'unavailable',
    `MCP server ${server} offers no tool ${tool} (or mcp.servers.${server}.tools leaves it out)`,
    { server, tool, toolErrorKind: 'mcp_unavailable' },
  );

/** A tool call that got no answer within mcp.servers.<name>.timeoutMs. */
export const mcpToolTimedOut = (server: string, tool: string, timeoutMs: number) =>
  new GatewayError(
    'upstream_failed',
    `MCP tool ${tool} of server ${server} did not answer within ${timeoutMs} ms (mcp.servers.${server}.timeoutMs)`,
    { server, tool, timeoutMs, toolErrorKind: 'timeout' },
  );

/** A tool reply larger than the result bound; its content is dropped, never passed on. */
export const mcpToolResultTooLarge = (server: string, tool: string, bytes: number, maxBytes: number) =>
  new GatewayError(
    'upstream_failed',
    `MCP tool ${tool} of server ${server} answered ${bytes} bytes, over the limit of ${maxBytes} bytes (mcp.maxResultBytes)`,
    { server, tool, maxBytes },
  );

/** A tool call the server answered with a protocol error (bad arguments, an unknown tool, a failure of its own). */
export const mcpToolFailed = (server: string, tool: string, reason: string) =>
  new GatewayError('upstream_failed', `MCP tool ${tool} of server ${server} failed: ${reason}`, { server, tool });

/** A tool call the server answered with `isError: true`: its own text (capped) is what the model sees. */
export const mcpToolError = (server: string, tool: string, text: string) =>
  new GatewayError('upstream_failed', `MCP tool ${tool} of server ${server} reported an error: ${text}`, {
    server,
    tool,
  });
