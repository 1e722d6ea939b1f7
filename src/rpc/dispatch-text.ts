// JSON-RPC text from /ws and POST /rpc: a message nested deeper than MAX_JSON_DEPTH is answered -32602 here,
// with each request's id and nothing run, before a method's own code could recurse through it.
import { jsonTooDeep } from '../errors.js';
import { canExceedJsonDepth, exceedsJsonDepth, MAX_JSON_DEPTH } from '../server/index.js';
import {
  errorResponse,
  invalidRequest,
  PARSE_ERROR,
  toRpcError,
  type DispatchContext,
  type DispatchOutcome,
  type Dispatcher,
  type JsonRpcId,
  type JsonRpcResponse,
} from './dispatch.js';

function requestId(message: unknown): { isNotification: boolean; id: JsonRpcId } {
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return { isNotification: false, id: null };
  if (!('id' in message)) return { isNotification: true, id: null };
  const { id } = message;
  return {
    isNotification: false,
    id: typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null,
  };
}

function refuseTooDeep(message: unknown): DispatchOutcome {
  const error = toRpcError(jsonTooDeep('Invalid params: the message', MAX_JSON_DEPTH, 'invalid_params'));
  const answer = (item: unknown): JsonRpcResponse | null => {
    // Something that is no request at all (a deep object without jsonrpc and method) is -32600, as when shallow.
    const refused = invalidRequest(item);
    if (refused !== undefined) return refused;
    const { isNotification, id } = requestId(item);
    return isNotification ? null : errorResponse(id, error);
  };
  if (!Array.isArray(message)) return answer(message);
  const answers = message.map(answer).filter((response): response is JsonRpcResponse => response !== null);
  return answers.length === 0 ? null : answers;
}

/** Dispatches one JSON-RPC text; only a text long enough to nest that deep is parsed here and walked. */
export async function dispatchJsonRpcText(
  dispatcher: Dispatcher,
  text: string,
  ctx: DispatchContext,
): Promise<DispatchOutcome> {
  if (!canExceedJsonDepth(text)) return dispatcher.dispatchText(text, ctx);
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return PARSE_ERROR;
  }
  return exceedsJsonDepth(message, MAX_JSON_DEPTH) ? refuseTooDeep(message) : dispatcher.dispatch(message, ctx);
}
