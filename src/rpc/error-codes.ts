// JSON-RPC error code per error kind (JSON-RPC 2.0 §5.1 and the spec's "WebSocket and JSON-RPC" error table).
import type { ErrorKind } from '../errors.js';

/** Spec: "-32603 internal error: insufficient scope, or a handler failure"; `error.data.kind` says which (DESIGN §3). */
const HANDLER_FAILURE = -32603;

export const RPC_CODE = {
  parse_error: -32700,
  invalid_request: -32600,
  payload_too_large: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  forbidden: HANDLER_FAILURE,
  internal: HANDLER_FAILURE,
  unauthorized: HANDLER_FAILURE,
  not_found: HANDLER_FAILURE,
  gone: HANDLER_FAILURE,
  conflict: HANDLER_FAILURE,
  duplicate: HANDLER_FAILURE,
  // A handler's own limit (the spawn limit); the transport's message rate limit is WS_RATE_LIMIT_CODE.
  rate_limited: HANDLER_FAILURE,
  upstream_failed: HANDLER_FAILURE,
  unavailable: HANDLER_FAILURE,
  budget_exceeded: HANDLER_FAILURE,
} as const satisfies Record<ErrorKind, number>;

/** Spec: -32000 is only the WebSocket per-connection message rate limit, answered by the transport itself. */
export const WS_RATE_LIMIT_CODE = -32000;
