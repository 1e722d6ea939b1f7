// session.compact: summarises all but the newest messages with the session's model into one system message.
import { agentModels, type AgentRegistry } from '../agents/index.js';
import { GatewayError } from '../errors.js';
import { estimateMessageTokens, type ModelRef, type ModelRouter, type TranscriptMessage } from '../providers/index.js';
import type { SessionRecord } from './types.js';

export interface CompactionResult {
  sessionKey: string;
  /** False when the transcript was already short enough; nothing was changed then. */
  compacted: boolean;
  summarizedMessages: number;
  messagesBefore: number;
  messagesAfter: number;
  /** Estimated (characters / 4) before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** `<provider>/<modelId>` that wrote the summary. */
  model?: string;
}

export interface CompactionDeps {
  router?: ModelRouter;
  agents?: AgentRegistry;
}

/** Opening line of every summary message, so the model and readers know what it is. */
export const SUMMARY_PREFIX = 'Summary of the earlier conversation:';

const SUMMARY_INSTRUCTIONS =
  'You compress conversation transcripts. Write a concise summary of the conversation below that keeps every fact, ' +
  'decision, open question, name, number and tool result a later turn may need. Write plain prose, no preamble.';

/** Upper bound on the transcript text sent for summarising when the model's window is unknown (characters). */
const DEFAULT_MAX_TRANSCRIPT_CHARS = 200_000;

/**
 * Where the kept tail starts: the newest `keepRecent` messages, moved earlier so the tail never opens with tool
 * results whose assistant tool call would be summarised away.
 */
export function compactionBoundary(messages: readonly TranscriptMessage[], keepRecent: number): number {
  let boundary = Math.max(0, messages.length - keepRecent);
  while (boundary > 0 && messages[boundary]?.role === 'tool') boundary -= 1;
  return boundary;
}

/** The summarised part as plain text: one block per message; tool calls named with their input. */
export function renderTranscript(messages: readonly TranscriptMessage[], maxChars: number): string {
  const blocks = messages.map((message) => {
    if (message.role === 'tool')
      return `tool ${message.toolName}${message.isError ? ' (error)' : ''}: ${message.content}`;
    if (message.role === 'assistant' && message.toolCalls !== undefined && message.toolCalls.length > 0) {
      const calls = message.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.input)})`).join(', ');
      return `assistant: ${message.content}\n[called ${calls}]`;
    }
    return `${message.role}: ${message.content}`;
  });
  const text = blocks.join('\n\n');
  // Beyond the budget the newest part wins: the start of a long transcript matters least to what follows.
  return text.length <= maxChars ? text : `…${text.slice(text.length - maxChars)}`;
}

function resolveModel(
  session: SessionRecord,
  { router, agents }: CompactionDeps,
): { router: ModelRouter; primary: ModelRef; fallbacks: readonly ModelRef[] } {
  if (router === undefined) {
    throw new GatewayError('unavailable', 'Compaction needs a model, and no model provider is configured', {
      reason: 'no_provider',
    });
  }
  const agent = agents?.get(session.agentId)?.config;
  const models = agent === undefined ? undefined : agentModels(agent, router);
  let primary = models?.primary;
  if (primary === undefined) {
    const first = router.catalog()[0];
    if (first !== undefined) primary = { provider: first.provider, modelId: first.modelId };
  }
  if (primary === undefined) {
    throw new GatewayError(
      'unavailable',
      `Compaction needs a model, and agent '${session.agentId}' has none configured`,
      { reason: 'no_provider' },
    );
  }
  const fallbacks = models?.fallbacks ?? [];
  return { router, primary, fallbacks };
}

const totalTokens = (messages: readonly TranscriptMessage[]): number =>
  messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);

/**
 * Works out the new transcript for `session`; the caller writes it (under the session lock). Throws
 * `unavailable` without a router or model, `upstream_failed` when the model returns no text.
 */
export async function summariseTranscript(
  session: SessionRecord,
  messages: readonly TranscriptMessage[],
  keepRecent: number,
  deps: CompactionDeps,
  signal: AbortSignal,
): Promise<{ result: CompactionResult; messages: TranscriptMessage[] | null }> {
  const boundary = compactionBoundary(messages, keepRecent);
  const tokensBefore = totalTokens(messages);
  const unchanged: CompactionResult = {
    sessionKey: session.sessionKey,
    compacted: false,
    summarizedMessages: 0,
    messagesBefore: messages.length,
    messagesAfter: messages.length,
    tokensBefore,
    tokensAfter: tokensBefore,
  };
  // A single old message is not worth a model call; replacing it would not shorten anything.
  if (boundary < 2) return { result: unchanged, messages: null };

  const { router, primary, fallbacks } = resolveModel(session, deps);
  const older = messages.slice(0, boundary);
  const contextWindow = router.entry(primary)?.contextWindow;
  const maxChars =
    contextWindow === undefined ? DEFAULT_MAX_TRANSCRIPT_CHARS : Math.max(4_000, Math.floor(contextWindow * 3));
  let summary = '';
  let answeredBy = primary;
  for await (const event of router.stream({
    primary,
    fallbacks,
    system: SUMMARY_INSTRUCTIONS,
    messages: [{ role: 'user', content: renderTranscript(older, maxChars), timestamp: older.at(-1)?.timestamp ?? 0 }],
    tools: [],
    agentId: session.agentId,
    sessionKey: session.sessionKey,
    // The session's owner pays for shortening it; a session older than owners, the gateway.
    ...(session.ownerId === null ? {} : { payer: { tokenId: session.ownerId, tenantId: session.tenantId } }),
    signal,
  })) {
    if (event.type === 'text-delta') summary += event.text;
    else if (event.type === 'finish') answeredBy = event.model;
  }
  summary = summary.trim();
  if (summary === '')
    throw new GatewayError('upstream_failed', 'The model returned an empty summary; the transcript was left unchanged');

  const summaryMessage: TranscriptMessage = {
    role: 'system',
    content: `${SUMMARY_PREFIX}\n${summary}`,
    timestamp: older.at(-1)?.timestamp ?? 0,
  };
  const next = [summaryMessage, ...messages.slice(boundary)];
  return {
    result: {
      sessionKey: session.sessionKey,
      compacted: true,
      summarizedMessages: older.length,
      messagesBefore: messages.length,
      messagesAfter: next.length,
      tokensBefore,
      tokensAfter: totalTokens(next),
      model: `${answeredBy.provider}/${answeredBy.modelId}`,
    },
    messages: next,
  };
}
