// One accepted chat message as an agent turn: attachments saved as media (voice transcribed), the turn run as a run
// of kind `channel` on the chat's session, the typing indicator repeated while it runs, and the reply queued.
import type { Logger } from 'pino';
import type { SaveMedia, TranscribeService } from '../audio/index.js';
import { maskUnknown, publicMessage } from '../errors.js';
import type { RunControl } from '../runs/index.js';
import { turnRunOutcome, undoneTaskError, type TurnResult, type TurnRunner } from '../turns/index.js';
import { channelCaller, type ChatScope, type ChatSessions } from './chat-sessions.js';
import type { OutboundReply } from './outbound.js';
import type { ChannelAdapter, InboundAttachment, InboundMessage } from './types.js';

/** How often the typing indicator is shown again while a turn runs (platforms clear it after ~5 s). */
export const TYPING_REPEAT_MS = 4_000;
/** How long fetching one attachment from the platform may take. */
export const ATTACHMENT_FETCH_TIMEOUT_MS = 60_000;

export const REPLY_FAILED = 'Sorry, I could not answer that message. Please try again later.';
export const VOICE_NOTE = '[Voice message, transcribed]';
export const VOICE_UNTRANSCRIBED = '[A voice message that could not be transcribed]';

export interface ChatTurnDeps {
  scope: () => ChatScope;
  adapter: Pick<ChannelAdapter, 'typing'>;
  chats: ChatSessions;
  turns: TurnRunner;
  runControl: Pick<RunControl, 'startRun'>;
  transcribe?: TranscribeService;
  saveMedia: SaveMedia;
  /** Queues a reply on the connection's outbound path. */
  reply: (reply: OutboundReply) => void;
  /** Aborted when the connection stops or the gateway shuts down. */
  signal: AbortSignal;
  newId: () => string;
  now: () => number;
  log: Logger;
}

/** The attachment's bytes, at most `maxBytes`; undefined when it is larger (the caller refuses it). */
export async function fetchWithin(
  attachment: InboundAttachment,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer | undefined> {
  if (attachment.bytes > maxBytes) return undefined;
  // One byte past the cap tells a file the platform understated from one that fits exactly.
  const data = await attachment.fetch(
    maxBytes + 1,
    AbortSignal.any([signal, AbortSignal.timeout(ATTACHMENT_FETCH_TIMEOUT_MS)]),
  );
  return data.length > maxBytes ? undefined : data;
}

export function createChatTurn(deps: ChatTurnDeps) {
  const { chats, turns, runControl, log } = deps;

  /** The agent's message: the text, a voice message's transcript, and media references for files. */
  async function messageOf(
    message: InboundMessage,
    files: readonly { attachment: InboundAttachment; data: Buffer }[],
    sessionKey: string,
  ): Promise<string> {
    const { clientId } = channelCaller(deps.scope().channelId);
    const parts: string[] = message.text.length > 0 ? [message.text] : [];
    for (const { attachment, data } of files) {
      if (attachment.kind === 'audio') {
        const transcript = await transcribeVoice(attachment, data, sessionKey, clientId);
        parts.push(transcript === undefined ? VOICE_UNTRANSCRIBED : `${VOICE_NOTE}\n${transcript}`);
        continue;
      }
      const { id } = await deps.saveMedia({
        data,
        contentType: attachment.mimeType,
        ownerId: clientId,
        origin: { sessionKey },
      });
      const name = attachment.name === undefined ? '' : `, ${attachment.name}`;
      parts.push(`[Attached ${attachment.kind}: media ${id} (${attachment.mimeType}${name})]`);
    }
    return parts.join('\n\n');
  }

  async function transcribeVoice(
    attachment: InboundAttachment,
    audio: Buffer,
    sessionKey: string,
    callerId: string,
  ): Promise<string | undefined> {
    if (deps.transcribe === undefined) return undefined;
    try {
      const result = await deps.transcribe({
        audio,
        mimeType: attachment.mimeType,
        save: false,
        sessionKey,
        callerId,
        traceId: deps.newId(),
        signal: deps.signal,
      });
      return result.error === undefined && result.text.trim().length > 0 ? result.text.trim() : undefined;
    } catch (error) {
      // Logged there when unexpected; the agent is told the voice message could not be transcribed.
      maskUnknown(error, log, {}, 'voice transcription failed');
      return undefined;
    }
  }

  function startTyping(chatId: string, threadId: string | undefined): () => void {
    const show = () => void deps.adapter.typing(chatId, threadId).catch(() => undefined);
    show();
    const timer = setInterval(show, TYPING_REPEAT_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Runs the turn for one accepted message whose attachments were fetched within the cap. */
  return async function runChatTurn(
    message: InboundMessage,
    files: readonly { attachment: InboundAttachment; data: Buffer }[],
  ): Promise<void> {
    const scope = deps.scope();
    const chat = {
      channelId: scope.channelId,
      chatId: message.chatId,
      ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
    };
    const answerTo = {
      chatId: message.chatId,
      replyTo: message.messageId,
      ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
    };
    const stopTyping = startTyping(message.chatId, message.threadId);
    let result: TurnResult | undefined;
    let failure: string | undefined;
    try {
      const key = await chats.current(scope, message.senderId, chat);
      const text = await messageOf(message, files, key.sessionKey);
      const runId = deps.newId();
      const caller = channelCaller(scope.channelId);
      const run = await runControl.startRun({
        runId,
        rootRunId: runId,
        kind: 'channel',
        agentId: scope.agentId,
        sessionKey: key.sessionKey,
        task: text,
        requestedBy: caller.clientId,
      });
      try {
        result = await turns.run({
          agentId: scope.agentId,
          ...key,
          message: text,
          caller,
          rootRunId: runId,
          messageId: message.messageId,
          channelType: scope.channelType,
          deliversReply: true,
          signal: AbortSignal.any([run.signal, deps.signal]),
        });
        failure = undoneTaskError(result);
      } catch (error) {
        failure = publicMessage(maskUnknown(error, log, { runId }, 'channel turn failed'));
      }
      await run.finish(turnRunOutcome(result, failure));
    } catch (error) {
      failure = publicMessage(maskUnknown(error, log, {}, 'channel message could not be handled'));
    } finally {
      stopTyping();
    }
    if (deps.signal.aborted) return;
    if (result !== undefined && failure === undefined) {
      if (result.response.trim().length === 0) return;
      deps.reply({
        ...answerTo,
        text: result.response,
        origin: { sessionKey: result.sessionKey, traceId: result.traceId, receivedAt: message.receivedAt },
      });
      return;
    }
    deps.reply({ ...answerTo, text: REPLY_FAILED });
  };
}

export type ChatTurnRunner = ReturnType<typeof createChatTurn>;
