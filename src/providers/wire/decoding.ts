// Small readers the protocol decoders share: token counts, tool-call arguments, generated ids, the joined system prompt.
import { randomUUID } from 'node:crypto';
import type { TranscriptMessage } from '../transcript.js';
import type { TokenUsage } from '../types.js';
import type { WireEvent } from './types.js';

/**
 * Response shapes are declared as the providers document them but trusted no further than this: every
 * leaf is checked with typeof before use, and a missing or mistyped counter reads as 0.
 */
export function count(value: unknown): number {
  return typeof value === 'number' && value > 0 ? value : 0;
}

export function zeroUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

/**
 * Tool-call and content-block indexes come from upstream and address our per-call arrays; anything outside
 * this range is refused rather than allowed to grow a sparse array.
 */
export const MAX_STREAM_INDEX = 1024;

export function isStreamIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < MAX_STREAM_INDEX;
}

/** A tool call whose arguments are still arriving in pieces. */
export interface PendingToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Arguments as JSON; empty arguments are an empty object (models send `""` for a tool without parameters);
 * text that is not JSON passes through as the raw string, for the turn loop to refuse with a tool error.
 */
export function toolInput(argumentsText: string): unknown {
  if (argumentsText.length === 0) return {};
  try {
    return JSON.parse(argumentsText);
  } catch {
    return argumentsText;
  }
}

/** For servers that send tool calls without an id (Gemini, some llama.cpp builds); our transcript needs one. */
export function newToolCallId(): string {
  return `call_${randomUUID()}`;
}

export function toolCallEvent(call: PendingToolCall): WireEvent {
  return {
    type: 'tool-call',
    toolCallId: call.id.length > 0 ? call.id : newToolCallId(),
    toolName: call.name,
    input: toolInput(call.arguments),
  };
}

/**
 * System messages inside the transcript join the system prompt (Anthropic and Gemini accept system text only
 * up front, and every protocol is fed the same way); undefined when there is none.
 */
export function systemPromptOf(system: string | undefined, messages: readonly TranscriptMessage[]): string | undefined {
  let joined = system !== undefined && system.length > 0 ? system : undefined;
  for (const message of messages) {
    if (message.role !== 'system' || message.content.length === 0) continue;
    joined = joined === undefined ? message.content : `${joined}\n\n${message.content}`;
  }
  return joined;
}

/** JSON arguments for a transcript tool call; a raw-string input (arguments that were not JSON) is sent back as it came. */
export function argumentsText(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input ?? {});
}
