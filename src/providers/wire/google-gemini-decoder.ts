// Reads a Gemini generateContent answer (SSE chunks, a JSON array of chunks, or one JSON response) into wire events.
import type { ModelFinishReason, TokenUsage } from '../types.js';
import { count, newToolCallId, zeroUsage } from './decoding.js';
import { errorFromStreamPayload, protocolError } from './errors.js';
import type { StreamDecoder } from './stream-call.js';
import type { WireEvent } from './types.js';

/** Every chunk repeats the running totals; the last one holds the final counts. */
interface GeminiUsage {
  /** The whole prompt, cached content included. */
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  /** Thinking tokens, billed as output. */
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
}

interface GeminiPart {
  text?: string;
  /** Set on thought summaries, which are not part of the answer. */
  thought?: boolean;
  functionCall?: { id?: string; name?: string; args?: unknown };
}

interface GeminiChunk {
  candidates?: { content?: { parts?: GeminiPart[] }; finishReason?: string }[];
  usageMetadata?: GeminiUsage;
  /** Set instead of candidates when the prompt itself was blocked. */
  promptFeedback?: { blockReason?: string };
  error?: unknown;
}

/** Keyed by upstream strings, so a Map: a plain object would answer `constructor` too. */
const FINISH_REASON: ReadonlyMap<string, ModelFinishReason> = new Map<string, ModelFinishReason>([
  ['STOP', 'stop'],
  ['MAX_TOKENS', 'length'],
  ['SAFETY', 'content-filter'],
  ['RECITATION', 'content-filter'],
  ['BLOCKLIST', 'content-filter'],
  ['PROHIBITED_CONTENT', 'content-filter'],
  ['SPII', 'content-filter'],
  ['IMAGE_SAFETY', 'content-filter'],
]);

/** Gemini ends a turn with function calls as STOP; the calls make it a tool-calls finish, as the other protocols report. */
export function geminiFinishReason(reason: string | undefined, hasToolCalls: boolean): ModelFinishReason {
  const mapped = (reason === undefined ? undefined : FINISH_REASON.get(reason)) ?? 'other';
  return mapped === 'stop' && hasToolCalls ? 'tool-calls' : mapped;
}

export function geminiUsage(usage: GeminiUsage | undefined): TokenUsage {
  if (typeof usage !== 'object' || usage === null) return zeroUsage();
  return {
    inputTokens: count(usage.promptTokenCount),
    outputTokens: count(usage.candidatesTokenCount) + count(usage.thoughtsTokenCount),
    cacheReadTokens: count(usage.cachedContentTokenCount),
    cacheWriteTokens: 0,
  };
}

export class GeminiDecoder implements StreamDecoder {
  #finishReason: string | undefined;
  #usage: GeminiUsage | undefined;
  #hasToolCalls = false;
  #isBlocked = false;

  frame(_event: string | undefined, data: string, out: WireEvent[]): void {
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch (error) {
      throw protocolError('unparsable Gemini stream chunk', error);
    }
    this.#chunk(chunk, out);
  }

  end(out: WireEvent[]): void {
    if (this.#finishReason === undefined && !this.#isBlocked)
      throw protocolError('Gemini stream ended before a finishReason');
    const finishReason =
      this.#isBlocked && this.#finishReason === undefined
        ? 'content-filter'
        : geminiFinishReason(this.#finishReason, this.#hasToolCalls);
    out.push({ type: 'finish', finishReason, usage: geminiUsage(this.#usage) });
  }

  /** generateContent answers one object; streamGenerateContent without alt=sse answers a JSON array of chunks. */
  json(body: unknown, out: WireEvent[]): void {
    if (Array.isArray(body)) for (const chunk of body) this.#chunk(chunk, out);
    else this.#chunk(body, out);
    this.end(out);
  }

  #chunk(value: unknown, out: WireEvent[]): void {
    if (typeof value !== 'object' || value === null) throw protocolError('Gemini chunk is not an object');
    const chunk: GeminiChunk = value;
    if (chunk.error !== undefined && chunk.error !== null) throw errorFromStreamPayload(chunk);
    if (typeof chunk.usageMetadata === 'object' && chunk.usageMetadata !== null) this.#usage = chunk.usageMetadata;
    if (typeof chunk.promptFeedback?.blockReason === 'string') this.#isBlocked = true;
    const candidate = chunk.candidates?.[0];
    if (candidate === undefined || candidate === null) return;
    const parts = candidate.content?.parts;
    if (Array.isArray(parts)) {
      for (const part of parts) {
        if (typeof part !== 'object' || part === null) continue;
        if (typeof part.text === 'string' && part.text.length > 0 && part.thought !== true)
          out.push({ type: 'text-delta', text: part.text });
        const call = part.functionCall;
        // Gemini sends each function call whole, in one part; no assembly needed.
        if (typeof call === 'object' && call !== null && typeof call.name === 'string') {
          this.#hasToolCalls = true;
          const toolCallId = typeof call.id === 'string' && call.id.length > 0 ? call.id : newToolCallId();
          out.push({ type: 'tool-call', toolCallId, toolName: call.name, input: call.args ?? {} });
        }
      }
    }
    if (typeof candidate.finishReason === 'string') this.#finishReason = candidate.finishReason;
  }
}
