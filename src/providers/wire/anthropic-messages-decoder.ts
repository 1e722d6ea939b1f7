// Reads an Anthropic Messages answer (the SSE event sequence or one JSON message) into wire events.
import type { ModelFinishReason, TokenUsage } from '../types.js';
import { count, isStreamIndex, newToolCallId, toolCallEvent, type PendingToolCall } from './decoding.js';
import { errorFromStreamPayload, protocolError } from './errors.js';
import type { StreamDecoder } from './stream-call.js';
import type { WireEvent } from './types.js';

/** Anthropic counts cached prompt parts apart from input_tokens; message_delta repeats any of them cumulatively. */
interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

interface AnthropicContentBlock {
  type?: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

interface AnthropicEvent {
  type?: string;
  index?: number;
  message?: { usage?: AnthropicUsage; content?: AnthropicContentBlock[]; stop_reason?: string | null };
  content_block?: AnthropicContentBlock;
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
  /** A whole (non-streamed) message carries these at the top level. */
  content?: AnthropicContentBlock[];
  stop_reason?: string | null;
}

/** Keyed by upstream strings, so a Map: a plain object would answer `constructor` too. */
const STOP_REASON: ReadonlyMap<string, ModelFinishReason> = new Map<string, ModelFinishReason>([
  ['end_turn', 'stop'],
  ['stop_sequence', 'stop'],
  ['max_tokens', 'length'],
  ['model_context_window_exceeded', 'length'],
  ['tool_use', 'tool-calls'],
  ['refusal', 'content-filter'],
]);

export function anthropicFinishReason(reason: string | undefined): ModelFinishReason {
  return (reason === undefined ? undefined : STOP_REASON.get(reason)) ?? 'other';
}

class UsageTotals {
  input = 0;
  output = 0;
  cacheRead = 0;
  cacheWrite = 0;

  /** Later reports of a counter replace earlier ones (message_delta's counts are cumulative). */
  add(usage: AnthropicUsage | undefined): void {
    if (typeof usage !== 'object' || usage === null) return;
    if (typeof usage.input_tokens === 'number') this.input = count(usage.input_tokens);
    if (typeof usage.output_tokens === 'number') this.output = count(usage.output_tokens);
    if (typeof usage.cache_read_input_tokens === 'number') this.cacheRead = count(usage.cache_read_input_tokens);
    if (typeof usage.cache_creation_input_tokens === 'number')
      this.cacheWrite = count(usage.cache_creation_input_tokens);
  }

  /** Our inputTokens is the whole prompt, cached parts included, as OpenAI counts it. */
  toTokenUsage(): TokenUsage {
    return {
      inputTokens: this.input + this.cacheRead + this.cacheWrite,
      outputTokens: this.output,
      cacheReadTokens: this.cacheRead,
      cacheWriteTokens: this.cacheWrite,
    };
  }
}

function parseEvent(data: string): AnthropicEvent {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch (error) {
    throw protocolError('unparsable Anthropic stream event', error);
  }
  if (typeof event !== 'object' || event === null) throw protocolError('Anthropic stream event is not an object');
  return event;
}

export class AnthropicMessagesDecoder implements StreamDecoder {
  /** tool_use blocks by content block index, until their content_block_stop. */
  readonly #calls: (PendingToolCall | undefined)[] = [];
  readonly #usage = new UsageTotals();
  #stopReason: string | undefined;
  #isStopped = false;
  readonly #isReportingToolInput: boolean;

  constructor(isReportingToolInput = false) {
    this.#isReportingToolInput = isReportingToolInput;
  }

  // The `event:` name repeats the data's `type`; the data is read, so servers that omit `event:` work too.
  frame(_event: string | undefined, data: string, out: WireEvent[]): void {
    const event = parseEvent(data);
    switch (event.type) {
      case 'message_start':
        this.#usage.add(event.message?.usage);
        break;
      case 'content_block_start': {
        const block = event.content_block;
        if (typeof block !== 'object' || block === null) break;
        if (block.type === 'tool_use') {
          if (!isStreamIndex(event.index))
            throw protocolError(`content block index out of range: ${String(event.index)}`);
          this.#calls[event.index] = {
            id: typeof block.id === 'string' ? block.id : '',
            name: typeof block.name === 'string' ? block.name : '',
            arguments: '',
          };
        } else if (block.type === 'text' && typeof block.text === 'string' && block.text.length > 0) {
          out.push({ type: 'text-delta', text: block.text });
        }
        break;
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta?.type === 'text_delta') {
          if (typeof delta.text === 'string' && delta.text.length > 0)
            out.push({ type: 'text-delta', text: delta.text });
        } else if (
          delta?.type === 'input_json_delta' &&
          isStreamIndex(event.index) &&
          typeof delta.partial_json === 'string'
        ) {
          const call = this.#calls[event.index];
          if (call !== undefined) call.arguments += delta.partial_json;
          if (this.#isReportingToolInput && delta.partial_json.length > 0)
            out.push({ type: 'tool-input-delta', text: delta.partial_json });
        }
        break;
      }
      case 'content_block_stop': {
        if (!isStreamIndex(event.index)) break;
        const call = this.#calls[event.index];
        if (call === undefined) break;
        this.#calls[event.index] = undefined;
        out.push(toolCallEvent(call));
        break;
      }
      case 'message_delta':
        if (typeof event.delta?.stop_reason === 'string') this.#stopReason = event.delta.stop_reason;
        this.#usage.add(event.usage);
        break;
      case 'message_stop':
        this.#isStopped = true;
        break;
      case 'error':
        throw errorFromStreamPayload(event);
      default:
        // ping, and event types added later (thinking blocks arrive as content_block_* with other delta types).
        break;
    }
  }

  end(out: WireEvent[]): void {
    if (!this.#isStopped && this.#stopReason === undefined)
      throw protocolError('Anthropic stream ended before message_stop');
    out.push({
      type: 'finish',
      finishReason: anthropicFinishReason(this.#stopReason),
      usage: this.#usage.toTokenUsage(),
    });
  }

  json(body: unknown, out: WireEvent[]): void {
    if (typeof body !== 'object' || body === null) throw protocolError('Anthropic message is not an object');
    const message: AnthropicEvent = body;
    if (message.type === 'error') throw errorFromStreamPayload(message);
    for (const block of Array.isArray(message.content) ? message.content : []) {
      if (block.type === 'text' && typeof block.text === 'string' && block.text.length > 0)
        out.push({ type: 'text-delta', text: block.text });
      else if (block.type === 'tool_use' && typeof block.name === 'string') {
        out.push({
          type: 'tool-call',
          toolCallId: typeof block.id === 'string' && block.id.length > 0 ? block.id : newToolCallId(),
          toolName: block.name,
          input: block.input ?? {},
        });
      }
    }
    this.#usage.add(message.usage);
    const reason = typeof message.stop_reason === 'string' ? message.stop_reason : undefined;
    out.push({ type: 'finish', finishReason: anthropicFinishReason(reason), usage: this.#usage.toTokenUsage() });
  }
}
