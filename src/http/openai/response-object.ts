// The Responses API shapes (DESIGN §3): the response object, its message output item, and the numbered stream events.
import { argumentsText, type TranscriptToolCall } from '../../providers/index.js';
import type { FinishReason, TurnResult } from '../../turns/index.js';
import { publicMessage, type GatewayError } from '../../errors.js';
import type { ResponseStatus } from '../../store/index.js';
import { OPENAI_ERRORS } from './errors.js';

export type { ResponseStatus } from '../../store/index.js';

/** How a finished turn's response ends; the message item carries the same status. */
export type FinishedStatus = 'completed' | 'incomplete';

/**
 * A turn whose answer was cut at its length is OpenAI's `incomplete` for `max_output_tokens`; every other ending
 * that produced a response is `completed` (turns without an answer fail first, turnFailure). Every internal reason
 * is listed, so a new one must be mapped here.
 */
const FINISHED_STATUS: Record<FinishReason, FinishedStatus> = {
  stop: 'completed',
  length: 'incomplete',
  max_steps: 'completed',
  budget_exceeded: 'completed',
  circuit_open: 'completed',
  context_loop: 'completed',
  context_exhausted: 'completed',
  aborted: 'completed',
  error: 'completed',
  tool_calls: 'completed',
};

export const finishedStatus = (result: Pick<TurnResult, 'finishReason'>): FinishedStatus =>
  FINISHED_STATUS[result.finishReason];

/** The request fields a response echoes back, as OpenAI's response object does. */
export interface ResponseEcho {
  model: string;
  instructions: string | null;
  temperature: number | null;
  topP: number | null;
  maxOutputTokens: number | null;
  previousResponseId: string | null;
  metadata: Record<string, string>;
  tools: readonly unknown[];
  toolChoice: unknown;
  parallelToolCalls: boolean;
  textFormat: unknown;
  store: boolean;
  user: string | null;
  truncation: 'auto' | 'disabled';
  maxToolCalls: number | null;
  serviceTier: string;
  promptCacheKey: string | null;
  safetyIdentifier: string | null;
  verbosity: string | null;
  /** `background: true`: answered queued, the turn ran off the request. */
  background: boolean;
}

export interface ResponseIds {
  responseId: string;
  messageId: string;
  /** Unix seconds. */
  createdAt: number;
}

export function outputText(text: string) {
  return { type: 'output_text', text, annotations: [] as never[] };
}

export function messageItem(
  ids: ResponseIds,
  status: 'in_progress' | FinishedStatus,
  content: ReturnType<typeof outputText>[],
) {
  return { type: 'message', id: ids.messageId, role: 'assistant', status, content };
}

/** A function call output item; its id is derived from the call id so stream events and the final object agree. */
export function functionCallItem(
  call: TranscriptToolCall,
  status: 'in_progress' | 'completed',
  args = argumentsText(call.input),
) {
  return { type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: args, status };
}

export function usageOf(result: TurnResult) {
  const { input, output, total } = result.tokensUsed;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: total,
  };
}

export interface ResponseState {
  status: ResponseStatus;
  result?: TurnResult;
  error?: GatewayError;
  /** A stream announces the message item first, so its final object keeps it even when the text is empty. */
  hasMessageItem?: boolean;
}

function outputOf(ids: ResponseIds, { result, hasMessageItem = false }: ResponseState) {
  if (result === undefined) return [];
  const calls = result.toolCalls ?? [];
  const message =
    hasMessageItem || result.response.length > 0 || calls.length === 0
      ? [messageItem(ids, finishedStatus(result), [outputText(result.response)])]
      : [];
  return [...message, ...calls.map((call) => functionCallItem(call, 'completed'))];
}

export function responseObject(ids: ResponseIds, echo: ResponseEcho, state: ResponseState) {
  const { result, error } = state;
  return {
    id: ids.responseId,
    object: 'response',
    created_at: ids.createdAt,
    background: echo.background,
    status: state.status,
    error: error === undefined ? null : { code: OPENAI_ERRORS[error.kind].type, message: publicMessage(error) },
    incomplete_details: state.status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: echo.instructions,
    max_output_tokens: echo.maxOutputTokens,
    model: echo.model,
    output: outputOf(ids, state),
    parallel_tool_calls: echo.parallelToolCalls,
    previous_response_id: echo.previousResponseId,
    store: echo.store,
    temperature: echo.temperature,
    text:
      echo.verbosity === null ? { format: echo.textFormat } : { format: echo.textFormat, verbosity: echo.verbosity },
    tool_choice: echo.toolChoice,
    tools: echo.tools,
    top_p: echo.topP,
    truncation: echo.truncation,
    max_tool_calls: echo.maxToolCalls,
    service_tier: echo.serviceTier,
    prompt_cache_key: echo.promptCacheKey,
    safety_identifier: echo.safetyIdentifier,
    user: echo.user,
    metadata: echo.metadata,
    usage: result === undefined ? null : usageOf(result),
  };
}

/** Numbers the events of one stream from 0, as OpenAI's `sequence_number`. */
export function createEventSequencer() {
  let next = 0;
  return function event(type: string, fields: Record<string, unknown>): { event: string; data: string } {
    const data = JSON.stringify({ type, sequence_number: next, ...fields });
    next += 1;
    return { event: type, data };
  };
}
