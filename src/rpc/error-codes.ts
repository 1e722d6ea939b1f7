// JSON-RPC error code per error kind (JSON-RPC 2.0 §5.1 and the spec's transport and catalogue tables).
import type { ErrorKind } from '../errors.js';

export const RPC_CODE = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  // Spec: "insufficient scope, or a handler failure" are both -32603.
  forbidden: -32603,
  internal: -32603,
  rate_limited: -32000,
  unauthorized: -32001,
  not_found: -32004,
  gone: -32010,
  conflict: -32009,
  // Raised only by the webhook route; a repeat is a conflict with what was accepted before.
  duplicate: -32009,
  payload_too_large: -32600,
  upstream_failed: -32002,
  unavailable: -32003,
} as const satisfies Record<ErrorKind, number>;
