// From an OpenAI request to a turn: which agent or model runs it, and which message, system prompt and history it gets.
import type { AgentRegistry } from '../../agents/index.js';
import { agentSuspended, GatewayError } from '../../errors.js';
import type { ModelRef, ModelRouter, TranscriptMessage } from '../../providers/index.js';
import { formatSessionKey, type FinishReason, type TurnResult } from '../../turns/index.js';

/** Session keys of /v1 requests (spec: "Session key used for OpenAI-compatible requests"). */
export const OPENAI_USER_ID = 'openai-api';
export const OPENAI_CHANNEL_ID = 'openai';

/** `default:openai-api:openai:<peerId>`, the peer being the completion or first response id. */
export function openAiSessionKey(peerId: string): string {
  return formatSessionKey({ userId: OPENAI_USER_ID, channelId: OPENAI_CHANNEL_ID, peerId });
}

export interface TurnTarget {
  /** Set when `model` named an agent. */
  agentId?: string;
  /** Set when `model` named a provider model; the default agent runs with it. */
  model?: ModelRef;
}

/**
 * Spec "POST /v1/chat/completions" rule 2. An agent id wins over a bare model id of the same name, since it is
 * the more specific gateway name; anything with a slash is a `<provider>/<modelId>`.
 */
export function resolveTarget(model: string, { agents, router }: { agents: Pick<AgentRegistry, 'get'>; router: Pick<ModelRouter, 'resolve'> }): TurnTarget {
  const agent = model.includes('/') ? undefined : agents.get(model);
  if (agent !== undefined) {
    // Refused here so a stream never starts for it (the turn loop would refuse it too, after the headers).
    if (agent.status === 'suspended') throw agentSuspended(model, 'model');
    return { agentId: model };
  }
  const ref = router.resolve(model);
  if (ref !== undefined) return { model: ref };
  throw new GatewayError('not_found', `Model not found: ${model}`, { param: 'model' });
}

/** A message with its content reduced to text. */
export interface PlainMessage {
  role: 'system' | 'user' | 'assistant';
  text: string;
}

export interface ContentBlock {
  type: string;
  text?: unknown;
}

export interface BlockKinds {
  text: readonly string[];
  image: readonly string[];
}

/**
 * Joins text blocks with "\n" (spec rule 4). Images are refused, never dropped; so is any other block type,
 * named with its param path.
 */
export function blocksToText(blocks: readonly ContentBlock[], kinds: BlockKinds, param: string): string {
  const parts: string[] = [];
  blocks.forEach((block, index) => {
    const blockParam = `${param}[${index}]`;
    if (kinds.image.includes(block.type)) {
      throw new GatewayError('invalid_params', `Vision input (${block.type} content) is not supported on this endpoint; send text content only`, { param: blockParam });
    }
    if (!kinds.text.includes(block.type)) {
      throw new GatewayError('invalid_params', `Content type '${block.type}' is not supported on this endpoint; use ${kinds.text.join(' or ')}`, { param: `${blockParam}.type` });
    }
    if (typeof block.text !== 'string') {
      throw new GatewayError('invalid_params', `Invalid value for '${blockParam}.text': expected string`, { param: `${blockParam}.text` });
    }
    parts.push(block.text);
  });
  return parts.join('\n');
}

export interface TurnInput {
  message: string;
  systemPrompt?: string;
  seedHistory: TranscriptMessage[];
}

/**
 * Spec rule 3 and DESIGN §3: system messages joined with "\n" become the system prompt, the last user message
 * is the input, and every other message seeds the new session's history in its original order.
 */
export function splitConversation(messages: readonly PlainMessage[], now: number, param: string): TurnInput {
  let lastUser = -1;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (messages[index]?.role === 'user') {
      lastUser = index;
      break;
    }
  }
  const input = messages[lastUser];
  if (input === undefined) throw new GatewayError('invalid_params', `'${param}' must contain at least one user message`, { param });
  const system = messages.filter((message) => message.role === 'system').map((message) => message.text);
  const seedHistory: TranscriptMessage[] = [];
  messages.forEach((message, index) => {
    if (index === lastUser || message.role === 'system') return;
    seedHistory.push({ role: message.role, content: message.text, timestamp: now });
  });
  return { message: input.text, seedHistory, ...(system.length > 0 ? { systemPrompt: system.join('\n') } : {}) };
}

export type OpenAiFinishReason = 'stop' | 'length';

/** Spec "Finish reason mapping": max_steps is `length`, every other reason (known or not) is `stop`. */
export function toOpenAiFinishReason(reason: FinishReason | (string & {})): OpenAiFinishReason {
  return reason === 'max_steps' ? 'length' : 'stop';
}

/**
 * A turn that ended without producing any text becomes an error rather than an empty `stop` completion,
 * which a client could not tell apart from a blank reply: the model failed (502), every breaker is open
 * (503), the input does not fit the context window (400), or the request was cancelled (503). A turn that
 * did produce text is answered normally, its reason mapped per the spec's table (error and circuit_open → stop).
 */
export function turnFailure(result: Pick<TurnResult, 'finishReason' | 'error' | 'response' | 'retryAfterMs'>, inputParam: string): GatewayError | undefined {
  if (result.response.length > 0) return undefined;
  const detail = result.error;
  switch (result.finishReason) {
    case 'error':
      return new GatewayError('upstream_failed', detail ?? 'The model call failed');
    case 'circuit_open':
      return new GatewayError('unavailable', detail ?? 'Every model for this request is temporarily unavailable', {
        reason: 'circuit_open',
        ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
      });
    case 'context_exhausted':
      return new GatewayError('invalid_params', detail ?? 'The input does not fit the model context window', { param: inputParam });
    case 'aborted':
      return new GatewayError('unavailable', 'The request was cancelled before the turn finished');
    default:
      return undefined;
  }
}
