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
  });

/** A server that could not be started or reached, or whose connection closed: the reason is part of the message. */
export const mcpServerUnavailable = (server: string, reason: string) =>
  new GatewayError('unavailable', `MCP server ${server} is unavailable: ${reason}`, { server });

/** A tool call that got no answer within mcp.servers.<name>.timeoutMs. */
export const mcpToolTimedOut = (server: string, tool: string, timeoutMs: number) =>
  new GatewayError(
    'upstream_failed',
    `MCP tool ${tool} of server ${server} did not answer within ${timeoutMs} ms (mcp.servers.${server}.timeoutMs)`,
    { server, tool, timeoutMs },
  );

/** A tool reply larger than the result bound; its content is dropped, never passed on. */
export const mcpToolResultTooLarge = (server: string, tool: string, bytes: number, maxBytes: number) =>
  new GatewayError(
    'upstream_failed',
    `MCP tool ${tool} of server ${server} answered ${bytes} bytes, over the limit of ${maxBytes} bytes`,
    { server, tool, maxBytes },
  );

/** A tool call the server answered with a protocol error (bad arguments, an unknown tool, a failure of its own). */
export const mcpToolFailed = (server: string, tool: string, reason: string) =>
  new GatewayError('upstream_failed', `MCP tool ${tool} of server ${server} failed: ${reason}`, { server, tool });
