// From an OpenAI request to a turn: which agent or model runs it, and which message, system prompt and history it gets.
import type { ParsedSessionKey } from '../../sessions/types.js';
import { agentModels, type AgentDefinition, type AgentRegistry } from '../../agents/index.js';
import { agentSuspended, agentWithoutModel, GatewayError } from '../../errors.js';
import type { ModelRef, ModelRouter, TranscriptMessage, TranscriptToolCall } from '../../providers/index.js';
import type { FinishReason, ToolOutput, TurnModels, TurnResult } from '../../turns/index.js';
import { DEFAULT_TENANT, OPENAI_CHANNEL_ID } from '../../sessions/index.js';

/** Session keys of /v1 requests (spec: "Session key used for OpenAI-compatible requests"). */
export const OPENAI_USER_ID = 'openai-api';

/**
 * `default:openai-api:openai:<peerId>`, the peer being the completion or first response id. Every part is this
 * gateway's own (constants, and an id it made: a prefix and a fresh UUID), so the key is put together without the
 * part checks a client's key gets.
 */
export function openAiSessionKey(peerId: string): ParsedSessionKey {
  return {
    sessionKey: `${DEFAULT_TENANT}:${OPENAI_USER_ID}:${OPENAI_CHANNEL_ID}:${peerId}`,
    keyParts: { tenantId: DEFAULT_TENANT, userId: OPENAI_USER_ID, channelId: OPENAI_CHANNEL_ID, peerId },
  };
}

/** Who runs the turn and on which models, chosen once where the request is read; the turn carries them (TurnRequest). */
export interface TurnTarget {
  /** Set when `model` named an agent. */
  agentId?: string;
  /** The named agent's models, or the provider model `model` named (the default agent then runs with it alone). */
  models: TurnModels;
}

type ModelNames = { agents: Pick<AgentRegistry, 'get'>; router: Pick<ModelRouter, 'resolve'> };

/**
 * What a `model` names, read the one way chat, Responses and GET /v1/models/:id read it: an agent id wins over a
 * bare model id of the same name, since it is the more specific gateway name; anything else is a configured
 * model, as `<provider>/<modelId>` or a bare model id. Undefined: nothing of that name.
 */
export function lookupModel(
  model: string,
  { agents, router }: ModelNames,
): { agent: AgentDefinition } | { ref: ModelRef } | undefined {
  const agent = model.includes('/') ? undefined : agents.get(model);
  if (agent !== undefined) return { agent };
  const ref = router.resolve(model);
  return ref === undefined ? undefined : { ref };
}

/** Spec "POST /v1/chat/completions" rule 2, by lookupModel; an agent that cannot run a turn is refused up front. */
export function resolveTarget(model: string, names: ModelNames): TurnTarget {
  const found = lookupModel(model, names);
  if (found === undefined) throw new GatewayError('not_found', `Model not found: ${model}`, { param: 'model' });
  if ('ref' in found) return { models: { primary: found.ref, fallbacks: [] } };
  const { agent } = found;
  // Refused here so a stream never starts for it (the turn loop would refuse it too, after the headers).
  if (agent.status === 'suspended') throw agentSuspended(model, 'model');
  const { primary, fallbacks } = agentModels(agent.config, names.router);
  // Also refused up front: a 5xx would tell the client to retry what only a config change can fix.
  if (primary === undefined) throw agentWithoutModel(model, 'model');
  return { agentId: model, models: { primary, fallbacks } };
}

/** A message with its content reduced to text; assistant messages keep their tool calls, tool messages their call id. */
export type PlainMessage =
  | { role: 'system' | 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls?: TranscriptToolCall[] }
  | { role: 'tool'; text: string; toolCallId: string };

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
      throw new GatewayError(
        'invalid_params',
        `Vision input (${block.type} content) is not supported on this endpoint; send text content only`,
        { param: blockParam },
      );
    }
    if (!kinds.text.includes(block.type)) {
      throw new GatewayError(
        'invalid_params',
        `Content type '${block.type}' is not supported on this endpoint; use ${kinds.text.join(' or ')}`,
        { param: `${blockParam}.type` },
      );
    }
    if (typeof block.text !== 'string') {
      throw new GatewayError('invalid_params', `Invalid value for '${blockParam}.text': expected string`, {
        param: `${blockParam}.text`,
      });
    }
    parts.push(block.text);
  });
  return parts.join('\n');
}

export interface TurnInput {
  /** Empty when the request only returns results for the client's tool calls (toolOutputs). */
  message: string;
  systemPrompt?: string;
  seedHistory: TranscriptMessage[];
  /** The results that end the conversation, for the calls of the assistant message before them. */
  toolOutputs?: ToolOutput[];
}

/** History messages in the transcript's shape; a tool message takes its tool's name from the call it answers. */
function toTranscript(messages: readonly PlainMessage[], now: number, param: string, offset = 0): TranscriptMessage[] {
  const callNames = new Map<string, string>();
  return messages.flatMap((message, index): TranscriptMessage[] => {
    switch (message.role) {
      case 'system':
        return [];
      case 'user':
        return [{ role: 'user', content: message.text, timestamp: now }];
      case 'assistant':
        for (const call of message.toolCalls ?? []) callNames.set(call.id, call.name);
        return [
          {
            role: 'assistant',
            content: message.text,
            timestamp: now,
            ...(message.toolCalls === undefined ? {} : { toolCalls: message.toolCalls }),
          },
        ];
      case 'tool': {
        const toolName = callNames.get(message.toolCallId);
        if (toolName === undefined) {
          throw new GatewayError(
            'invalid_params',
            `No assistant tool call with id '${message.toolCallId}' comes before this tool message`,
            { param: `${param}[${index + offset}].tool_call_id` },
          );
        }
        return [
          {
            role: 'tool',
            toolCallId: message.toolCallId,
            toolName,
            content: message.text,
            isError: false,
            timestamp: now,
          },
        ];
      }
    }
  });
}

/**
 * Spec rule 3 and DESIGN §3: system messages joined with "\n" become the system prompt, the last user message
 * is the input, and every other message seeds the new session's history in its original order. A conversation
 * that ends with tool messages continues after the client ran its tools: everything before them is history and
 * they are the results of the last assistant message's calls.
 */
export function splitConversation(messages: readonly PlainMessage[], now: number, param: string): TurnInput {
  const system = messages.filter((message) => message.role === 'system').map((message) => message.text);
  const systemPrompt = system.length > 0 ? { systemPrompt: system.join('\n') } : {};
  let firstResult = messages.length;
  while (firstResult > 0 && messages[firstResult - 1]?.role === 'tool') firstResult -= 1;
  if (firstResult < messages.length) {
    const results = messages
      .slice(firstResult)
      .flatMap((message) =>
        message.role === 'tool' ? [{ toolCallId: message.toolCallId, content: message.text }] : [],
      );
    return {
      message: '',
      seedHistory: toTranscript(messages.slice(0, firstResult), now, param),
      toolOutputs: results,
      ...systemPrompt,
    };
  }
  let lastUser = -1;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (messages[index]?.role === 'user') {
      lastUser = index;
      break;
    }
  }
  const input = messages[lastUser];
  if (input === undefined)
    throw new GatewayError('invalid_params', `'${param}' must contain at least one user message`, { param });
  const before = toTranscript(messages.slice(0, lastUser), now, param);
  const after = toTranscript(messages.slice(lastUser + 1), now, param, lastUser + 1);
  return { message: input.text, seedHistory: [...before, ...after], ...systemPrompt };
}

export type OpenAiFinishReason = 'stop' | 'length' | 'tool_calls';

/**
 * Spec "Finish reason mapping": max_steps is `length`, and so is an answer cut at its length (the provider's max
 * tokens or the gateway's output cap), as OpenAI reports it; every other reason is `stop`; a turn that ended on the
 * client's tool calls is OpenAI's `tool_calls`. Every internal reason is listed, so a new one must be mapped here.
 */
const OPENAI_FINISH_REASONS: Record<FinishReason, OpenAiFinishReason> = {
  stop: 'stop',
  length: 'length',
  max_steps: 'length',
  budget_exceeded: 'stop',
  circuit_open: 'stop',
  context_loop: 'stop',
  context_exhausted: 'stop',
  aborted: 'stop',
  error: 'stop',
  tool_calls: 'tool_calls',
};

const isFinishReason = (reason: string): reason is FinishReason => Object.hasOwn(OPENAI_FINISH_REASONS, reason);

export function toOpenAiFinishReason(reason: FinishReason | (string & {})): OpenAiFinishReason {
  return isFinishReason(reason) ? OPENAI_FINISH_REASONS[reason] : 'stop';
}

/**
 * A turn that ended without producing any text becomes an error rather than an empty `stop` completion, which a client
 * could not tell apart from a blank reply: the model failed (502, naming the provider's status and message), storage
 * or Redis became unreachable mid-turn (503 with Retry-After), every breaker is open (503), the input does not fit the
 * context window (400), or the request was cancelled (503). A turn that did produce text is answered normally, its
 * reason mapped per the spec's table (error and circuit_open → stop).
 */
export function turnFailure(
  result: Pick<TurnResult, 'finishReason' | 'error' | 'response' | 'retryAfterMs' | 'errorKind' | 'upstreamStatus'>,
  inputParam: string,
): GatewayError | undefined {
  if (result.response.length > 0) return undefined;
  const detail = result.error;
  const retryAfter = result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs };
  switch (result.finishReason) {
    case 'error':
      if (result.errorKind === 'unavailable')
        return new GatewayError('unavailable', detail ?? 'A service the turn needs is unavailable', retryAfter);
      return new GatewayError(
        'upstream_failed',
        detail ?? 'The model call failed',
        result.upstreamStatus === undefined ? {} : { upstreamStatus: result.upstreamStatus },
      );
    case 'circuit_open':
      return new GatewayError('unavailable', detail ?? 'Every model for this request is temporarily unavailable', {
        reason: 'circuit_open',
        ...retryAfter,
      });
    case 'context_exhausted':
      return new GatewayError('invalid_params', detail ?? 'The input does not fit the model context window', {
        param: inputParam,
      });
    case 'aborted':
      return new GatewayError('unavailable', 'The request was cancelled before the turn finished');
    case 'budget_exceeded':
      // A budget refused the model call before dispatch: 429 insufficient_quota, Retry-After to the window's end.
      return result.errorKind === 'budget_exceeded'
        ? new GatewayError('budget_exceeded', detail ?? 'A budget is at its limit', retryAfter)
        : undefined;
    default:
      return undefined;
  }
}
