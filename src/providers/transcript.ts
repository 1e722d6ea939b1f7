// The provider-neutral transcript message stored per session and sent to the model layer.

export interface TranscriptToolCall {
  id: string;
  name: string;
  input: unknown;
}

export type TranscriptMessage =
  | { role: 'system'; content: string; timestamp: number }
  | { role: 'user'; content: string; timestamp: number }
  | { role: 'assistant'; content: string; toolCalls?: TranscriptToolCall[]; timestamp: number }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError: boolean; timestamp: number };

/** Rough token estimate used for context budgeting: ceil(characters / 4), the same rule as the spec's embeddings usage. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function estimateMessageTokens(message: TranscriptMessage): number {
  const calls = message.role === 'assistant' && message.toolCalls !== undefined ? JSON.stringify(message.toolCalls) : '';
  // A few tokens of framing per message, as chat formats add role markers.
  return estimateTokens(message.content) + estimateTokens(calls) + 4;
}
