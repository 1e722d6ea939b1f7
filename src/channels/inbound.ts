// A connection's inbound side: who may talk (allow-lists, per-sender rate), what is refused politely (over the text or
// attachment cap: nothing stored), `/new`, and one turn at a time per chat (the next message waits its turn).
import type { Logger } from 'pino';
import type { ChannelConfig } from '../config/index.js';
import { fetchWithin, type ChatTurnRunner } from './chat-turn.js';
import type { SenderRate } from './sender-rate.js';
import type { InboundAttachment, InboundMessage } from './types.js';

export const NEW_SESSION_COMMAND = /^\/new(@\S+)?$/i;
export const NEW_SESSION_STARTED = 'New conversation started.';
export const RATE_NOTICE = 'You are sending messages faster than I can take them; please wait a minute and try again.';
export const tooLongNotice = (maxChars: number) =>
  `Sorry, that message is too long for me (at most ${maxChars} characters). Please send a shorter one.`;
export const tooLargeNotice = (maxBytes: number) =>
  `Sorry, that attachment is too large (at most ${Math.floor(maxBytes / 1024)} KB). It was not saved.`;

/** Whether the sender or the chat is on the connection's allow-list ("*" allows any). */
export function isAllowed(allow: ChannelConfig['allow'], senderId: string, chatId: string): boolean {
  return (
    allow.senders.includes('*') ||
    allow.senders.includes(senderId) ||
    allow.chats.includes('*') ||
    allow.chats.includes(chatId)
  );
}

export interface InboundDeps {
  config: () => ChannelConfig;
  rate: SenderRate;
  runTurn: ChatTurnRunner;
  startNew: (message: InboundMessage) => Promise<void>;
  /** Answers in the chat outside a turn (refusals, notices). */
  notify: (message: InboundMessage, text: string) => void;
  /** A message ignored (not allowed, or over the sender's rate). */
  ignored: () => void;
  /** A message accepted (counted as received). */
  accepted: () => void;
  signal: AbortSignal;
  log: Logger;
}

export interface Inbound {
  /** Takes a message from the adapter; never blocks it. */
  accept(message: InboundMessage): void;
  /** Resolves once every chat's queued work has ended. */
  idle(): Promise<void>;
}

export function createInbound(deps: InboundDeps): Inbound {
  const { log } = deps;
  /** The tail of each chat's queue: the next message runs after it. */
  const tails = new Map<string, Promise<void>>();

  async function handle(message: InboundMessage): Promise<void> {
    if (deps.signal.aborted) return;
    const config = deps.config();
    if (NEW_SESSION_COMMAND.test(message.text.trim()) && message.attachments.length === 0) {
      await deps.startNew(message);
      deps.notify(message, NEW_SESSION_STARTED);
      return;
    }
    const files: { attachment: InboundAttachment; data: Buffer }[] = [];
    for (const attachment of message.attachments) {
      const data = await fetchWithin(attachment, config.maxAttachmentBytes, deps.signal);
      if (data === undefined) {
        deps.notify(message, tooLargeNotice(config.maxAttachmentBytes));
        return;
      }
      files.push({ attachment, data });
    }
    await deps.runTurn(message, files);
  }

  function enqueue(message: InboundMessage): void {
    const chatKey = `${message.chatId}\u0000${message.threadId ?? ''}`;
    const tail = (tails.get(chatKey) ?? Promise.resolve())
      .then(() => handle(message))
      .catch((error: unknown) => log.error({ err: error, chatId: message.chatId }, 'channel message not handled'))
      .finally(() => {
        if (tails.get(chatKey) === tail) tails.delete(chatKey);
      });
    tails.set(chatKey, tail);
  }

  return {
    accept(message) {
      const config = deps.config();
      if (!isAllowed(config.allow, message.senderId, message.chatId)) {
        deps.ignored();
        return;
      }
      const rate = deps.rate.admit(message.senderId, config.senderMessagesPerMinute);
      if (!rate.allowed) {
        deps.ignored();
        if (rate.notify) deps.notify(message, RATE_NOTICE);
        return;
      }
      deps.accepted();
      if (message.text.length > config.maxInboundChars) {
        deps.notify(message, tooLongNotice(config.maxInboundChars));
        return;
      }
      if (message.attachments.some((attachment) => attachment.bytes > config.maxAttachmentBytes)) {
        deps.notify(message, tooLargeNotice(config.maxAttachmentBytes));
        return;
      }
      enqueue(message);
    },
    async idle() {
      while (tails.size > 0) await Promise.all([...tails.values()]);
    },
  };
}
