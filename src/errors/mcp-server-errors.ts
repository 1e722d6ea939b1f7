// Errors of the gateway's own MCP server at /mcp (src/mcp/server): its sessions and the requests it refuses.
import { GatewayError } from './gateway-error.js';

/** A request naming an MCP session that ended, expired, never existed or belongs to another token. */
export const mcpSessionNotFound = () =>
  new GatewayError('not_found', 'MCP session not found: it ended or expired; initialize a new one');

/** A request other than `initialize` without the Mcp-Session-Id header the initialize answer gave. */
export const mcpSessionRequired = () =>
  new GatewayError('invalid_request', 'Mcp-Session-Id header is required: send initialize first to open a session');

/** The gateway holds mcp.server.maxSessions sessions: a new one is refused until one ends or expires. */
export const mcpSessionsFull = (maxSessions: number, retryAfterMs: number) =>
  new GatewayError('unavailable', `The gateway holds its limit of ${maxSessions} MCP sessions; try again later`, {
    retryAfterMs,
  });

/** JSON-RPC batches: MCP revisions from 2025-06-18 send one message per request, so each tool call counts once. */
export const mcpBatchRefused = () =>
  new GatewayError('invalid_request', 'JSON-RPC batches are not accepted on /mcp: send one message per request');
