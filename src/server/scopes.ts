// Scope rules of the spec: empty scopes or '*' grant everything; rpc, admin, api, ws, mcp-client and metrics otherwise.
import type { Caller, Transport } from './types.js';

/** Empty scopes means all scopes (spec: "Gateway token"). */
export function hasAllScopes(caller: Caller): boolean {
  return caller.scopes.length === 0 || caller.scopes.includes('*');
}

/**
 * Whether `caller` may call a method of `required` scope over `transport`.
 * Decided here (spec: "What the ws scope grants: not shown"): `ws` grants the rpc-scoped methods over the
 * WebSocket only, so a socket-only client cannot use the HTTP routes.
 */
export function grantsMethodScope(caller: Caller, required: 'rpc' | 'admin', transport: Transport): boolean {
  if (hasAllScopes(caller)) return true;
  if (caller.scopes.includes(required)) return true;
  return required === 'rpc' && transport === 'ws' && caller.scopes.includes('ws');
}

/** REST, SSE and media need rpc; `mcp-client` alone is refused there. */
export function grantsRest(caller: Caller): boolean {
  return hasAllScopes(caller) || caller.scopes.includes('rpc');
}

/** The /v1 routes accept a token with rpc or api scope. */
export function grantsOpenAi(caller: Caller): boolean {
  return hasAllScopes(caller) || caller.scopes.includes('rpc') || caller.scopes.includes('api');
}

/** POST /mcp (DESIGN §3 "MCP"): tokens with mcp-client, rpc or `*`; mcp-client reaches nothing else. */
export function grantsMcp(caller: Caller): boolean {
  return hasAllScopes(caller) || caller.scopes.includes('mcp-client') || caller.scopes.includes('rpc');
}

/** GET /metrics on a gateway bound beyond loopback: an admin token, one with the metrics scope, or `*`. */
export function grantsMetrics(caller: Caller): boolean {
  return hasAllScopes(caller) || caller.scopes.includes('admin') || caller.scopes.includes('metrics');
}
