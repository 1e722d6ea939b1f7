// One streamed model call through the provider's wire adapter, bounded by the reply's output limits.
import type { Logger } from 'pino';
import type { TranscriptMessage } from './transcript.js';
import { createOutputMeter, estimateTokens, type OutputLimits } from './output-limit.js';
import type { CallSettings, ModelFinishReason, TokenUsage, ToolSpec } from './types.js';
import { ProviderCallError, type WireAdapter, type WireCallOptions } from './wire/index.js';

export interface ModelCallOptions {
  /** The provider's adapter; its pool and deadline (the provider's timeoutMs) are built once per providers: config. */
  adapter: WireAdapter;
  modelId: string;
  system: string;
  messages: readonly TranscriptMessage[];
  tools: readonly ToolSpec[];
  settings: CallSettings;
  /** How much text and tool-call arguments one reply may stream before it is cut (output-limit.ts). */
  limits: OutputLimits;
  signal: AbortSignal;
  log: Logger;
}

export type ModelCallEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'finish'; finishReason: ModelFinishReason; usage: TokenUsage };

/** CallSettings in the adapters' shape: the sampling fields grouped, the rest as they are. */
export function wireOptions(settings: CallSettings): WireCallOptions {
  const {
    responseFormat,
    toolChoice,
    parallelToolCalls,
    reasoningEffort,
    serviceTier,
    promptCacheKey,
    safetyIdentifier,
    verbosity,
    ...sampling
  } = settings;
  return {
    sampling,
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
    ...(serviceTier === undefined ? {} : { serviceTier }),
    ...(promptCacheKey === undefined ? {} : { promptCacheKey }),
    ...(safetyIdentifier === undefined ? {} : { safetyIdentifier }),
    ...(verbosity === undefined ? {} : { verbosity }),
    ...(responseFormat === undefined ? {} : { responseFormat }),
    ...(toolChoice === undefined ? {} : { toolChoice }),
    ...(parallelToolCalls === undefined ? {} : { parallelToolCalls }),
  };
}

function cutFinish(options: ModelCallOptions, chars: number): ModelCallEvent {
  options.log.warn(
    { chars, maxChars: options.limits.maxChars, maxBytes: options.limits.maxBytes },
    'model reply passed its output limit; the call was cut',
  );
  // The server's own count never arrives for a cut call: both sides are estimated.
  const inputTokens = estimateTokens(options.system.length + JSON.stringify(options.messages).length);
  return {
    type: 'finish',
    finishReason: 'length',
    usage: { inputTokens, outputTokens: estimateTokens(chars), cacheReadTokens: 0, cacheWriteTokens: 0 },
  };
}

/**
 * Streams one call. Throws the caller's abort reason when the caller's signal ended it, and the adapter's
 * classified ProviderCallError for every other failure. A reply that passes `limits` is cut there: its text up to
 * the limit is kept (the last delta cut short, even the first one), leaving the adapter's stream closes the upstream
 * request, and the call finishes with `length` and an estimated usage. Tool-call arguments cut short are dropped whole.
 */
export async function* streamModelCall(options: ModelCallOptions): AsyncGenerator<ModelCallEvent> {
  const { signal } = options;
  if (signal.aborted) throw signal.reason;
  const meter = createOutputMeter(options.limits);
  const events = options.adapter.stream({
    ...wireOptions(options.settings),
    modelId: options.modelId,
    system: options.system,
    messages: options.messages,
    tools: options.tools,
    signal,
    reportToolInput: true,
  });
  try {
    for await (const event of events) {
      switch (event.type) {
        case 'text-delta': {
          const admitted = meter.admit(event.text);
          if (admitted.length === event.text.length) {
            yield event;
            break;
          }
          if (admitted.length > 0) yield { type: 'text-delta', text: admitted };
          yield cutFinish(options, meter.chars);
          return;
        }
        case 'tool-input-delta':
          if (meter.admit(event.text).length < event.text.length) {
            yield cutFinish(options, meter.chars);
            return;
          }
          break;
        case 'tool-call':
          yield event;
          break;
        case 'finish':
          yield event;
          return;
      }
    }
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  }
  throw new ProviderCallError('unknown', undefined, undefined, 'model stream ended without a finish', {
    upstreamMessage: 'the reply stream ended without a finish',
  });
}
