// The transport-level JSON-RPC errors of the WebSocket (spec: "WebSocket and JSON-RPC" error table).
import { errorResponse, PARSE_ERROR, RPC_CODE, WS_RATE_LIMIT_CODE, type JsonRpcResponse } from '../rpc/index.js';

export const RATE_LIMITED = JSON.stringify(
  errorResponse(null, { code: WS_RATE_LIMIT_CODE, message: 'Message rate limit exceeded' }),
);

export const BINARY_FRAME = JSON.stringify(PARSE_ERROR);

export function oversizeMessage(size: number, max: number): string {
  const response: JsonRpcResponse = errorResponse(null, {
    code: RPC_CODE.invalid_request,
    message: `Message size ${size} bytes exceeds maximum of ${max}`,
  });
  return JSON.stringify(response);
}

export function notification(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', method, params });
}

export const CLOSE_UNAUTHORIZED = 4001;
export const CLOSE_GOING_AWAY = 1001;
export const SHUTDOWN_REASON = 'Server shutting down';
