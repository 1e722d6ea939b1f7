// Telegram updates in: the parts of the Bot API's Update the adapter reads, and how each becomes a core event.
import { z } from 'zod';
import type { ChannelAdapterEvents, InboundAttachment, InboundMessage, InboundReaction } from '../types.js';
import { parseCallbackData } from './approvals.js';

/**
 * The update kinds the adapter asks Telegram for (getUpdates / setWebhook `allowed_updates`): Telegram sends
 * message_reaction only when it is asked for by name.
 */
export const ALLOWED_UPDATES = ['message', 'message_reaction', 'callback_query'] as const;

// Telegram adds fields to its objects over time: these read the fields used and let the others through (loose), where
// our own API's schemas are strict.
const user = z.looseObject({ id: z.number().int(), is_bot: z.boolean(), username: z.string().optional() });
const chat = z.looseObject({ id: z.number().int(), type: z.string() });
const file = z.looseObject({
  file_id: z.string().min(1),
  file_size: z.number().int().nonnegative().optional(),
  mime_type: z.string().optional(),
  file_name: z.string().optional(),
});
const photoSize = z.looseObject({
  file_id: z.string().min(1),
  width: z.number(),
  height: z.number(),
  file_size: z.number().int().nonnegative().optional(),
});
const message = z.looseObject({
  message_id: z.number().int(),
  from: user.optional(),
  chat,
  text: z.string().optional(),
  caption: z.string().optional(),
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
  voice: file.optional(),
  audio: file.optional(),
  document: file.optional(),
  photo: z.array(photoSize).optional(),
});
const reactionType = z.looseObject({
  type: z.string(),
  emoji: z.string().optional(),
  custom_emoji_id: z.string().optional(),
});
const messageReaction = z.looseObject({
  chat,
  message_id: z.number().int(),
  user: user.optional(),
  actor_chat: chat.optional(),
  old_reaction: z.array(reactionType),
  new_reaction: z.array(reactionType),
});
const callbackQuery = z.looseObject({
  id: z.string(),
  from: user,
  message: z.looseObject({ message_id: z.number().int(), chat }).optional(),
  data: z.string().optional(),
});

/** What makes a body an update at all; a webhook post that is not one is refused. */
export const updateEnvelope = z.looseObject({ update_id: z.number().int().nonnegative() });

const update = updateEnvelope.extend({
  message: message.optional(),
  message_reaction: messageReaction.optional(),
  callback_query: callbackQuery.optional(),
});

export type TelegramMessage = z.infer<typeof message>;
export type TelegramFile = z.infer<typeof file>;
export type CallbackQuery = z.infer<typeof callbackQuery>;

export interface UpdateContext {
  events: ChannelAdapterEvents;
  now: () => number;
  /** The bot's own username once getMe answered: `/new@<it>` in a group is the command `/new`. */
  botUsername: () => string | undefined;
  attachmentsOf: (message: TelegramMessage) => InboundAttachment[];
  /** Stops the button's spinner; runs in the background (the update is never held up by it). */
  answerCallback: (query: CallbackQuery) => void;
}

const THUMBS_UP = '👍';
const THUMBS_DOWN = '👎';

function withoutBotMention(text: string, botUsername: string | undefined): string {
  if (botUsername === undefined || !text.startsWith('/')) return text;
  const match = /^(\/[A-Za-z0-9_]+)@([A-Za-z0-9_]+)(?=\s|$)/.exec(text);
  if (match === null || match[2]?.toLowerCase() !== botUsername.toLowerCase()) return text;
  return `${match[1] ?? ''}${text.slice(match[0].length)}`;
}

function toMessage(telegram: TelegramMessage, context: UpdateContext): InboundMessage | undefined {
  const { from } = telegram;
  // Channel posts and other bots' messages (a group with several bots) are no one's turn.
  if (from === undefined || from.is_bot) return undefined;
  const text = withoutBotMention(telegram.text ?? telegram.caption ?? '', context.botUsername());
  const attachments = context.attachmentsOf(telegram);
  if (text === '' && attachments.length === 0) return undefined;
  const isTopic = telegram.is_topic_message === true && telegram.message_thread_id !== undefined;
  return {
    chatId: String(telegram.chat.id),
    senderId: String(from.id),
    messageId: String(telegram.message_id),
    ...(isTopic ? { threadId: String(telegram.message_thread_id) } : {}),
    text,
    attachments,
    receivedAt: context.now(),
  };
}

function reactionName(reaction: z.infer<typeof reactionType>): string {
  if (reaction.type === 'emoji' && reaction.emoji !== undefined) return reaction.emoji;
  if (reaction.type === 'custom_emoji' && reaction.custom_emoji_id !== undefined)
    return `custom_emoji:${reaction.custom_emoji_id}`;
  return reaction.type;
}

/** The reactions a user added (Telegram sends the whole new set; removals and the unchanged ones are no event). */
function toReactions(reaction: z.infer<typeof messageReaction>): InboundReaction[] {
  const sender = reaction.user?.id ?? reaction.actor_chat?.id;
  if (sender === undefined) return [];
  const before = new Set(reaction.old_reaction.map(reactionName));
  return reaction.new_reaction
    .map(reactionName)
    .filter((name) => !before.has(name))
    .map((raw) => ({
      chatId: String(reaction.chat.id),
      senderId: String(sender),
      messageId: String(reaction.message_id),
      polarity: raw === THUMBS_UP ? 'positive' : raw === THUMBS_DOWN ? 'negative' : 'other',
      raw,
    }));
}

function dispatchCallback(query: CallbackQuery, context: UpdateContext): void {
  context.answerCallback(query);
  const answer = query.data === undefined ? undefined : parseCallbackData(query.data);
  // A press on a message the bot can no longer see (too old) has no chat to answer in.
  if (answer === undefined || query.message === undefined) return;
  context.events.approval({
    chatId: String(query.message.chat.id),
    senderId: String(query.from.id),
    requestRef: answer.requestRef,
    approved: answer.approved,
  });
}

/**
 * Reports one update (already known to be an update) to the core. Returns false when its parts are not what the Bot
 * API documents: the caller logs it and moves on, so one odd update never stops the ones after it.
 */
export function dispatchUpdate(raw: unknown, context: UpdateContext): boolean {
  const parsed = update.safeParse(raw);
  if (!parsed.success) return false;
  const { message: telegram, message_reaction: reaction, callback_query: query } = parsed.data;
  if (telegram !== undefined) {
    const inbound = toMessage(telegram, context);
    if (inbound !== undefined) context.events.message(inbound);
  }
  if (reaction !== undefined) for (const inbound of toReactions(reaction)) context.events.reaction(inbound);
  if (query !== undefined) dispatchCallback(query, context);
  return true;
}
