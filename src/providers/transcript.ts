// The provider-neutral transcript message stored per session and sent to the model layer.

import type { TranscriptMessage } from '../store/index.js';

export type { TranscriptMessage, TranscriptToolCall } from '../store/index.js';

/** Rough token estimate used for context budgeting: ceil(characters / 4), the same rule as the spec's embeddings usage. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function estimateMessageTokens(message: TranscriptMessage): number {
  const calls =
    message.role === 'assistant' && message.toolCalls !== undefined ? JSON.stringify(message.toolCalls) : '';
  // A few tokens of framing per message, as chat formats add role markers.
  return estimateTokens(message.content) + estimateTokens(calls) + 4;
}
