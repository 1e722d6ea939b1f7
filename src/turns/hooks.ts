// The turn loop's named extension points: capability modules register these; the loop knows no module by name.
import type { TranscriptMessage } from '../providers/index.js';
import type { SessionKeyParts } from '../sessions/index.js';
import type { TurnRequest } from './types.js';

/** What a hook sees about the turn it runs in. */
export interface TurnHookContext {
  agentId: string;
  sessionKey: string;
  /** The key's parts (tenant, user, channel), as the turn request carries them: hooks need not parse the key. */
  keyParts: SessionKeyParts;
  traceId: string;
  /** The caller's client id; tenant scoping for recall and approvals. */
  clientId: string;
  /**
   * The token id owning the session: whose resources (memories, browser context) the turn's hooks and tools act on.
   * The caller's own id for a session it created; another token's when an admin continues that token's session.
   */
  ownerId: string;
  signal: AbortSignal;
  /** The run tree the turn belongs to (a spawned run or a scheduled fire); absent for a plain turn. */
  rootRunId?: string;
}

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

export interface BeforeModelInput {
  /** The user message of this turn. */
  message: string;
  /** 1-based model step within the turn. */
  step: number;
}

/** Context a `beforeModel` hook adds in front of the history for this model call only. */
export interface ModelContextAddition {
  /** Who added it (module name), for the turn's evidence. */
  source: string;
  messages: readonly TranscriptMessage[];
}

export interface ToolCallInfo {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

export type ToolDecision =
  | { action: 'allow' }
  | { action: 'deny'; reason: string }
  /** The call waits for `decision` (an approval); the turn's signal aborting ends the wait as a denial. */
  | { action: 'wait'; decision: Promise<{ action: 'allow' } | { action: 'deny'; reason: string }> };

export interface ToolCallResult extends ToolCallInfo {
  ok: boolean;
  durationMs: number;
  errorKind?: string;
}

export interface TurnSummary {
  finishReason: string;
  steps: number;
  tokensUsed: { input: number; output: number; total: number };
  costUsd: number;
}

export interface TurnHooks {
  beforeModel(input: BeforeModelInput, ctx: TurnHookContext): Promise<ModelContextAddition | undefined>;
  beforeTool(call: ToolCallInfo, ctx: TurnHookContext): Promise<ToolDecision>;
  afterTool(result: ToolCallResult, ctx: TurnHookContext): Promise<void>;
  afterTurn(summary: TurnSummary, ctx: TurnHookContext): Promise<void>;
}

/** Every hook name, listed once, for registries and docs. */
export const TURN_HOOK_NAMES = [
  'beforeModel',
  'beforeTool',
  'afterTool',
  'afterTurn',
] as const satisfies readonly (keyof TurnHooks)[];
