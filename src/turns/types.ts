// What a turn is asked and what it answers: the request every surface builds and the result TurnService returns.
import type { ErrorKind } from '../errors.js';
import type { CallSettings, ModelRef, ToolSpec, TranscriptMessage, TranscriptToolCall } from '../providers/index.js';
import type { SessionCaller } from '../agents/types.js';
import type { ParsedSessionKey, SessionKeyParts } from '../sessions/types.js';
import type { ToolOutput } from './client-tools.js';

/** Why a turn ended (spec: "Finish reason mapping" plus the report's context_exhausted). */
export type FinishReason =
  | 'stop'
  /**
   * The answer was cut at its length: the provider stopped at its max tokens (OpenAI `length`, Anthropic
   * `max_tokens`, Gemini `MAX_TOKENS`) or the gateway cut a reply past its output cap. The text up to the cut is kept.
   */
  | 'length'
  | 'max_steps'
  | 'budget_exceeded'
  | 'circuit_open'
  | 'context_loop'
  | 'context_exhausted'
  | 'aborted'
  | 'error'
  /** The model called a tool the caller runs (a client tool); the calls are in TurnResult.toolCalls. */
  | 'tool_calls';

export interface TokensUsed {
  input: number;
  output: number;
  total: number;
}

/** The models a turn runs on, chosen once per turn: the primary, then the fallbacks tried in order when it fails. */
export interface TurnModels {
  primary: ModelRef;
  fallbacks: readonly ModelRef[];
}

/**
 * What every surface asks a turn: `sessionKey` with its `keyParts`, parsed or made once where the key came in
 * (readSessionKey, makeSessionKey), so TurnService and the loop never parse it again.
 */
export interface TurnRequest extends ParsedSessionKey {
  /** Omitted: the default agent. */
  agentId?: string;
  /** The user's message; empty when the turn only carries results for tool calls the caller ran (toolOutputs). */
  message: string;
  /**
   * Who asks: a new session is owned by `caller.clientId`; an existing one must be theirs unless they are
   * admin (sessions/session-access.ts), checked before the turn writes anything.
   */
  caller: SessionCaller;
  /** Messages that seed a new session's history (OpenAI requests); ignored when the session has history. */
  seedHistory?: readonly TranscriptMessage[];
  /** The model is given at most this many of the session's newest earlier messages (a scheduled job's turn); absent: all. */
  historyLimit?: number;
  /** Replaces the agent's system prompt for this turn (OpenAI system messages). */
  systemPrompt?: string;
  /**
   * The models of this turn, chosen where the request was read (OpenAI `model` naming a provider model, or the agent
   * it names); absent: TurnService chooses the agent's (agentModels), once per turn.
   */
  models?: TurnModels;
  /** Sampling, structured output and tool choice for every model call of the turn (a forcing tool choice: the first only). */
  settings?: CallSettings;
  /** Tools the caller runs: offered beside the agent's own; a call to one ends the turn with `tool_calls`. */
  clientTools?: readonly ToolSpec[];
  /** Results for the client tool calls an earlier turn of this session ended with. */
  toolOutputs?: readonly ToolOutput[];
  /**
   * The most tool calls the turn makes (OpenAI `max_tool_calls`): agent tool calls it runs plus client calls it hands
   * back, across all its steps. Calls past it get a `not run (max_tool_calls)` result; with none left, no tools are
   * offered. Absent: no cap beyond the agent's own limits.
   */
  maxToolCalls?: number;
  /**
   * History that does not fit the model's window ends the turn `context_exhausted` instead of being dropped oldest
   * first (OpenAI Responses `truncation: "disabled"`).
   */
  keepsWholeHistory?: boolean;
  /** Called with each text delta as the model streams; a returned promise holds the model call back until it settles. */
  onDelta?: (delta: string) => void | Promise<void>;
  /** Called as each agent tool call of the turn starts running and as it ends (a denied call only ends). */
  onTool?: (progress: ToolProgress) => void;
  /** The id of the inbound message (e.g. the chatcmpl id), so trace search can find the turn by it. */
  messageId?: string;
  /** The root of the sub-agent run tree this turn belongs to. */
  rootRunId?: string;
  /** The platform of the key's channel (a chat connection's kind: telegram, slack, email); message events carry it. */
  channelType?: string;
  /**
   * The caller delivers the reply itself and records its delivery trace once the platform took it (a chat channel's
   * outbound queue): the turn then records none of its own.
   */
  deliversReply?: boolean;
  /** Marks test or synthetic traffic, excluded from trace search by default. */
  isSynthetic?: boolean;
  /**
   * A turn nothing can continue (a /v1 chat completion, whose key is unique by construction): it takes no session
   * lock and writes no session row, transcript or session usage; its evidence and token usage are still recorded.
   */
  stateless?: boolean;
  /** The key is unique by construction (a /v1 chat completion): no other turn can hold it, so no lock is taken. */
  isKeyUnique?: boolean;
  signal: AbortSignal;
}

/** Where one agent tool call of a turn is: `started` as it runs, `finished` once its result is in. */
export type ToolProgress =
  | { name: string; callId: string; step: number; status: 'started' }
  | {
      name: string;
      callId: string;
      step: number;
      status: 'finished';
      durationMs: number;
      /** `denied`: a beforeTool hook or an operator refused it, so it never ran (no `started` before it). */
      outcome: 'ok' | 'error' | 'denied';
    };

export interface TurnResult {
  response: string;
  tokensUsed: TokensUsed;
  finishReason: FinishReason;
  agentId: string;
  sessionKey: string;
  traceId: string;
  costUsd: number;
  steps: number;
  /**
   * A human-readable cause when finishReason is error, circuit_open or context_exhausted. For a model failure it names
   * the model, the provider's HTTP status and its own message (secrets masked, capped), each model of a failed chain.
   */
  error?: string;
  /**
   * Which kind of failure ended a turn that threw (error, circuit_open): `upstream_failed` (the model provider failed),
   * `unavailable` (storage or Redis unreachable mid-turn, an open breaker, no provider), `internal` (a bug) …, so each
   * surface maps it once (/v1: 502, 503 with Retry-After, …).
   */
  errorKind?: ErrorKind;
  /** With upstream_failed: the HTTP status the (last) model's provider answered, when it answered one. */
  upstreamStatus?: number;
  /** With circuit_open or an `unavailable` error: ms until a retry may succeed. */
  retryAfterMs?: number;
  /** With tool_calls: the client tool calls the caller is to run and answer in its next request. */
  toolCalls?: TranscriptToolCall[];
}

export interface TurnRunner {
  run(request: TurnRequest): Promise<TurnResult>;
}

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
