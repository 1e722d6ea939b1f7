// Reads an OpenAI Chat Completions answer (SSE chunks or one JSON body) into wire events: text, assembled tool calls, finish with usage.
import type { ModelFinishReason, TokenUsage } from '../types.js';
import { count, isStreamIndex, toolCallEvent, zeroUsage, type PendingToolCall } from './decoding.js';
import { errorFromStreamPayload, protocolError } from './errors.js';
import type { StreamDecoder } from './stream-call.js';
import type { WireEvent } from './types.js';

/** The usage object of a chunk or completion (OpenAI's names). */
interface OpenAiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  /** cached_tokens: the part of prompt_tokens served from the prompt cache. */
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

interface OpenAiToolCallDelta {
  /** Which call of the message this piece belongs to; pieces of one call share it. */
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface OpenAiChoice {
  delta?: { content?: string | null; tool_calls?: OpenAiToolCallDelta[] | null };
  message?: { content?: string | null; tool_calls?: OpenAiToolCallDelta[] | null };
  finish_reason?: string | null;
}

interface OpenAiChunk {
  choices?: OpenAiChoice[];
  /** Present on the last chunk when stream_options.include_usage is set; null before it. */
  usage?: OpenAiUsage | null;
  /** Mid-stream failures (OpenAI, OpenRouter, vLLM) arrive as a data frame carrying an error. */
  error?: unknown;
}

/** Keyed by upstream strings, so a Map: a plain object would answer `constructor` too. */
const FINISH_REASON: ReadonlyMap<string, ModelFinishReason> = new Map<string, ModelFinishReason>([
  ['stop', 'stop'],
  ['length', 'length'],
  ['tool_calls', 'tool-calls'],
  ['function_call', 'tool-calls'],
  ['content_filter', 'content-filter'],
]);

export function openAiFinishReason(reason: string | undefined): ModelFinishReason {
  return (reason === undefined ? undefined : FINISH_REASON.get(reason)) ?? 'other';
}

/** prompt_tokens already includes the cached part (OpenAI's convention and ours); OpenAI reports no cache writes. */
export function openAiUsage(usage: OpenAiUsage | null | undefined): TokenUsage {
  if (typeof usage !== 'object' || usage === null) return zeroUsage();
  return {
    inputTokens: count(usage.prompt_tokens),
    outputTokens: count(usage.completion_tokens),
    cacheReadTokens: count(usage.prompt_tokens_details?.cached_tokens),
    cacheWriteTokens: 0,
  };
}

function parseChunk(data: string): OpenAiChunk {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch (error) {
    throw protocolError('unparsable chat completion chunk', error);
  }
  if (typeof chunk !== 'object' || chunk === null) throw protocolError('chat completion chunk is not an object');
  return chunk;
}

export class OpenAiChatDecoder implements StreamDecoder {
  readonly #calls: PendingToolCall[] = [];
  #finishReason: string | undefined;
  #usage: OpenAiUsage | undefined;
  #isDone = false;
  #areCallsEmitted = false;
  readonly #isReportingToolInput: boolean;

  constructor(isReportingToolInput = false) {
    this.#isReportingToolInput = isReportingToolInput;
  }

  frame(_event: string | undefined, data: string, out: WireEvent[]): void {
    if (data === '[DONE]') {
      this.#isDone = true;
      return;
    }
    const chunk = parseChunk(data);
    if (chunk.error !== undefined && chunk.error !== null) throw errorFromStreamPayload(chunk);
    if (typeof chunk.usage === 'object' && chunk.usage !== null) this.#usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (choice === undefined || choice === null) return;
    const delta = choice.delta;
    if (delta !== undefined && delta !== null) {
      if (typeof delta.content === 'string' && delta.content.length > 0)
        out.push({ type: 'text-delta', text: delta.content });
      if (Array.isArray(delta.tool_calls)) this.#addToolCallPieces(delta.tool_calls, out);
    }
    if (typeof choice.finish_reason === 'string') {
      this.#finishReason = choice.finish_reason;
      // The calls are complete once the choice finishes; the usage chunk may still follow.
      this.#emitCalls(out);
    }
  }

  end(out: WireEvent[]): void {
    // A server may omit [DONE] after a finish_reason; without either, the stream was cut short.
    if (this.#finishReason === undefined && !this.#isDone)
      throw protocolError('chat completion stream ended before a finish_reason');
    this.#emitCalls(out);
    out.push({ type: 'finish', finishReason: openAiFinishReason(this.#finishReason), usage: openAiUsage(this.#usage) });
  }

  json(body: unknown, out: WireEvent[]): void {
    if (typeof body !== 'object' || body === null) throw protocolError('chat completion is not an object');
    const completion: OpenAiChunk = body;
    if (completion.error !== undefined && completion.error !== null) throw errorFromStreamPayload(completion);
    const choice = completion.choices?.[0];
    const message = choice?.message;
    if (typeof message?.content === 'string' && message.content.length > 0)
      out.push({ type: 'text-delta', text: message.content });
    if (Array.isArray(message?.tool_calls)) this.#addToolCallPieces(message.tool_calls, out);
    this.#emitCalls(out);
    const reason = typeof choice?.finish_reason === 'string' ? choice.finish_reason : undefined;
    out.push({ type: 'finish', finishReason: openAiFinishReason(reason), usage: openAiUsage(completion.usage) });
  }

  #addToolCallPieces(pieces: readonly OpenAiToolCallDelta[], out: WireEvent[]): void {
    for (let position = 0; position < pieces.length; position += 1) {
      const piece = pieces[position];
      if (typeof piece !== 'object' || piece === null) continue;
      // Servers that send whole calls in one chunk sometimes leave out `index`; the position then stands in.
      const index = piece.index === undefined ? position : piece.index;
      if (!isStreamIndex(index)) throw protocolError(`tool call index out of range: ${String(index)}`);
      let call = this.#calls[index];
      if (call === undefined) {
        call = { id: '', name: '', arguments: '' };
        this.#calls[index] = call;
      }
      if (typeof piece.id === 'string' && piece.id.length > 0) call.id = piece.id;
      const fn = piece.function;
      if (typeof fn?.name === 'string' && fn.name.length > 0) call.name = fn.name;
      if (typeof fn?.arguments === 'string') {
        call.arguments += fn.arguments;
        if (this.#isReportingToolInput && fn.arguments.length > 0)
          out.push({ type: 'tool-input-delta', text: fn.arguments });
      }
    }
  }

  #emitCalls(out: WireEvent[]): void {
    if (this.#areCallsEmitted) return;
    this.#areCallsEmitted = true;
    for (const call of this.#calls) {
      if (call !== undefined && call.name.length > 0) out.push(toolCallEvent(call));
    }
  }
}
