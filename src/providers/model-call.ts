// One streamed model call through the AI SDK: a single step, tools without execute, no SDK retries.
import { stepCountIs, streamText, type FinishReason, type LanguageModel, type ToolSet } from 'ai';
import type { Logger } from 'pino';
import { createCallSignal } from './call-signal.js';
import { classifyProviderError, ProviderCallError, statusCodeOf } from './error-kind.js';
import type { ModelPrompt } from './messages.js';
import { createOutputMeter, estimateTokens, type OutputLimits } from './output-limit.js';
import type { ModelFinishReason, TokenUsage } from './types.js';
import { toTokenUsage } from './usage.js';

export interface ModelCallOptions {
  model: LanguageModel;
  prompt: ModelPrompt;
  tools: ToolSet | undefined;
  temperature?: number;
  maxOutputTokens?: number;
  /** The provider's timeoutMs: bounds the whole call, first byte to last. */
  timeoutMs: number;
  /** How much text, reasoning and tool-call arguments one reply may stream before it is cut (output-limit.ts). */
  limits: OutputLimits;
  signal: AbortSignal;
  log: Logger;
}

export type ModelCallEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'finish'; finishReason: ModelFinishReason; usage: TokenUsage };

function toFinishReason(reason: FinishReason): ModelFinishReason {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'tool-calls':
    case 'content-filter':
      return reason;
    default:
      return 'other';
  }
}

/**
 * Streams one call. Throws the caller's abort reason when the caller's signal ended it, and a
 * ProviderCallError (classified, the SDK error as cause) for every other failure. A reply that passes
 * `limits` is cut there: the upstream request is aborted and the call finishes with `length` and an
 * estimated usage (the server's own count never arrives).
 */
export async function* streamModelCall(options: ModelCallOptions): AsyncGenerator<ModelCallEvent> {
  const { signal } = options;
  if (signal.aborted) throw signal.reason;
  const call = createCallSignal(signal, options.timeoutMs);
  const meter = createOutputMeter(options.limits);
  const cut = (): ModelCallEvent => {
    options.log.warn({ chars: meter.chars, maxChars: options.limits.maxChars, maxBytes: options.limits.maxBytes }, 'model reply passed its output limit; the call was cut');
    const inputTokens = estimateTokens(JSON.stringify(options.prompt).length);
    return { type: 'finish', finishReason: 'length', usage: { inputTokens, outputTokens: estimateTokens(meter.chars), cacheReadTokens: 0, cacheWriteTokens: 0 } };
  };
  const toFailure = (error: unknown): unknown => {
    if (signal.aborted) return signal.reason;
    if (error instanceof ProviderCallError) return error;
    if (call.isTimedOut()) return new ProviderCallError('timeout', undefined, { cause: error });
    return new ProviderCallError(classifyProviderError(error), statusCodeOf(error), { cause: error });
  };
  try {
    const result = streamText({
      model: options.model,
      system: options.prompt.system,
      messages: options.prompt.messages,
      tools: options.tools,
      temperature: options.temperature,
      maxOutputTokens: options.maxOutputTokens,
      // Retries, fallback and the breaker are the router's; the turn loop runs tools, so one step only.
      maxRetries: 0,
      stopWhen: stepCountIs(1),
      abortSignal: call.signal,
      // Failures arrive as 'error' parts below; this keeps the SDK from printing them to the console.
      onError: () => undefined,
    });
    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'text-delta':
          if (!meter.admit(part.text)) {
            yield cut();
            return;
          }
          if (part.text.length > 0) yield { type: 'text-delta', text: part.text };
          break;
        case 'reasoning-delta':
        case 'tool-input-delta': {
          if (!meter.admit(part.type === 'reasoning-delta' ? part.text : part.delta)) {
            yield cut();
            return;
          }
          break;
        }
        case 'tool-call':
          yield { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input };
          break;
        case 'start-step':
          if (part.warnings.length > 0) options.log.debug({ warnings: part.warnings }, 'model call warnings');
          break;
        case 'error':
          throw toFailure(part.error);
        case 'abort':
          throw toFailure(new DOMException('model call aborted', 'AbortError'));
        case 'finish':
          yield { type: 'finish', finishReason: toFinishReason(part.finishReason), usage: toTokenUsage(part.totalUsage) };
          return;
        default:
          break;
      }
    }
    throw new ProviderCallError('unknown', undefined, { cause: new Error('model stream ended without a finish part') });
  } catch (error) {
    throw toFailure(error);
  } finally {
    call.dispose();
  }
}
