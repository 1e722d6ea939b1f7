// JSON-RPC core: the method registry, the dispatcher shared by /ws and /rpc, error codes and OpenRPC.
export { createRegistry, defineMethod, noParams } from './registry.js';
export {
  createDispatcher,
  errorResponse,
  PARSE_ERROR,
  type AuditedCall,
  type Dispatcher,
  type DispatchContext,
  type DispatchOutcome,
  type JsonRpcResponse,
  type JsonRpcErrorData,
} from './dispatch.js';
export { dispatchJsonRpcText } from './dispatch-text.js';
export { formatParamIssues } from './param-issues.js';
export { RPC_CODE, WS_RATE_LIMIT_CODE } from './error-codes.js';
export { buildOpenRpcDocument } from './openrpc.js';
export { renderApiReference } from './api-reference.js';
