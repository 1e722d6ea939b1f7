// The turn loop's named extension points: capability modules register these; the loop knows no module by name.
import type { TurnHookContext, TurnRequest } from './types.js';

/** The hook context of one turn of `request`, run by `agentId` under `traceId` in a session owned by `ownerId`. */
export function hookContextOf(
  request: TurnRequest,
  agentId: string,
  traceId: string,
  ownerId: string,
): TurnHookContext {
  const { sessionKey, keyParts, caller, signal, rootRunId } = request;
  return {
    agentId,
    sessionKey,
    keyParts,
    traceId,
    clientId: caller.clientId,
    ownerId,
    signal,
    ...(rootRunId === undefined ? {} : { rootRunId }),
  };
}
