// Slack's inbound payloads (Events API event_callback, interactivity block_actions), the same over HTTP and Socket
// Mode, turned into the contract's message, reaction and approval events. Slack adds fields over time, so the
// schemas are loose objects (unknown fields dropped) rather than strict ones; what is read is still validated.
import { z } from 'zod';
import type { ChannelAdapterEvents, InboundReaction } from '../types.js';
import { slackAttachments, slackFileSchema, type AttachmentSource } from './attachments.js';
import { slackPayloadInvalid } from './slack-errors.js';

/** Event ids remembered to drop Slack's redeliveries (it retries an event it thinks was not acknowledged). */
export const RECENT_EVENT_IDS = 1_000;

const MAX_FILES_PER_MESSAGE = 20;

const slackId = z.string().min(1).max(255);

const messageEvent = z.object({
  type: z.literal('message'),
  subtype: z.string().max(100).optional(),
  channel: slackId,
  user: slackId.optional(),
  bot_id: z.string().optional(),
  text: z.string().max(200_000).default(''),
  ts: slackId,
  thread_ts: slackId.optional(),
  files: z.array(slackFileSchema).max(MAX_FILES_PER_MESSAGE).default([]),
});

const reactionEvent = z.object({
  type: z.literal('reaction_added'),
  user: slackId,
  reaction: z.string().min(1).max(255),
  item: z.object({ type: z.string(), channel: slackId.optional(), ts: slackId.optional() }),
});

const eventsPayload = z.discriminatedUnion('type', [
  z.object({ type: z.literal('url_verification'), challenge: z.string().min(1).max(1_000) }),
  z.object({
    type: z.literal('event_callback'),
    event_id: slackId.optional(),
    event: z.looseObject({ type: z.string() }),
  }),
]);

const blockActionsPayload = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: slackId }),
  channel: z.object({ id: slackId }).optional(),
  container: z.object({ channel_id: slackId.optional() }).optional(),
  actions: z
    .array(z.object({ action_id: z.string().max(255), value: z.string().max(2_000).optional() }))
    .min(1)
    .max(25),
});

/** The action ids of the approval buttons (approval-blocks.ts posts them). */
export const APPROVE_ACTION = 'approve';
export const DENY_ACTION = 'deny';

/** Message subtypes that are a person writing: plain, with files, or a thread reply also sent to the channel. */
const USER_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

export interface InboundContext extends AttachmentSource {
  events: ChannelAdapterEvents;
  /** The bot's own user id (from auth.test) once known: its own posts come back as events and are not messages. */
  botUserId: string | undefined;
  now: () => number;
  /** Records an event id; false when it was seen already (a redelivery). */
  firstDelivery(eventId: string): boolean;
}

/** Slack escapes &, < and > in message text; the agent reads the characters the person typed. */
function unescapeText(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

function polarity(reaction: string): InboundReaction['polarity'] {
  const base = reaction.replace(/::skin-tone-\d$/, '');
  if (base === '+1' || base === 'thumbsup') return 'positive';
  if (base === '-1' || base === 'thumbsdown') return 'negative';
  return 'other';
}

function issues(error: z.ZodError): string {
  const first = error.issues[0];
  return first === undefined ? 'invalid' : `${first.path.join('.') || 'payload'}: ${first.message}`;
}

function dispatchEvent(event: { type: string }, context: InboundContext): void {
  if (event.type === 'message') {
    const parsed = messageEvent.safeParse(event);
    if (!parsed.success) throw slackPayloadInvalid(issues(parsed.error));
    const message = parsed.data;
    const isOwn = message.bot_id !== undefined || (message.user !== undefined && message.user === context.botUserId);
    if (isOwn || message.user === undefined || !USER_SUBTYPES.has(message.subtype)) return;
    context.events.message({
      chatId: message.channel,
      senderId: message.user,
      messageId: message.ts,
      ...(message.thread_ts === undefined ? {} : { threadId: message.thread_ts }),
      text: unescapeText(message.text),
      attachments: slackAttachments(message.files, context),
      receivedAt: context.now(),
    });
    return;
  }
  if (event.type === 'reaction_added') {
    const parsed = reactionEvent.safeParse(event);
    if (!parsed.success) throw slackPayloadInvalid(issues(parsed.error));
    const { user, reaction, item } = parsed.data;
    if (item.type !== 'message' || item.channel === undefined || item.ts === undefined) return;
    context.events.reaction({
      chatId: item.channel,
      senderId: user,
      messageId: item.ts,
      polarity: polarity(reaction),
      raw: reaction,
    });
  }
  // Other event types the app may be subscribed to are acknowledged and ignored.
}

/** An Events API payload: the challenge to answer, or undefined once its event was emitted (or ignored). */
export function handleEventsPayload(document: unknown, context: InboundContext): { challenge: string } | undefined {
  const parsed = eventsPayload.safeParse(document);
  if (!parsed.success) throw slackPayloadInvalid(issues(parsed.error));
  const payload = parsed.data;
  if (payload.type === 'url_verification') return { challenge: payload.challenge };
  if (payload.event_id !== undefined && !context.firstDelivery(payload.event_id)) return undefined;
  dispatchEvent(payload.event, context);
  return undefined;
}

/** An interactivity payload: a press of an approval button becomes an approval answer; other actions are ignored. */
export function handleInteractivePayload(document: unknown, context: InboundContext): void {
  const parsed = blockActionsPayload.safeParse(document);
  if (!parsed.success) throw slackPayloadInvalid(issues(parsed.error));
  const { user, channel, container, actions } = parsed.data;
  const chatId = channel?.id ?? container?.channel_id;
  if (chatId === undefined) throw slackPayloadInvalid('block_actions without a channel');
  for (const action of actions) {
    const isApproval = action.action_id === APPROVE_ACTION || action.action_id === DENY_ACTION;
    if (!isApproval || action.value === undefined) continue;
    context.events.approval({
      chatId,
      senderId: user.id,
      requestRef: action.value,
      approved: action.action_id === APPROVE_ACTION,
    });
  }
}

/** A bounded memory of event ids: the oldest are forgotten first. */
export function createRecentIds(max = RECENT_EVENT_IDS): (id: string) => boolean {
  const seen = new Set<string>();
  return (id) => {
    if (seen.has(id)) return false;
    seen.add(id);
    if (seen.size > max) {
      const oldest = seen.values().next();
      if (oldest.done !== true) seen.delete(oldest.value);
    }
    return true;
  };
}
