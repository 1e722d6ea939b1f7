// The channels config section: chat-platform connections (src/channels) — Telegram, Slack and email — hot-applied.
import { z } from 'zod';
import { durationMs, positiveInt } from './schema-units.js';

const listOfIds = z.array(z.string().min(1).max(256)).max(10_000);

/** What every connection has, whatever its platform. */
const commonChannelFields = {
  /** false: configured but disconnected (channels.list shows it disabled). */
  enabled: z.boolean().default(true),
  /** The agent that answers this connection's messages (a configured agent). */
  agentId: z.string().min(1),
  /** The tenant part of the session keys of this connection's chats. */
  tenantId: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/)
    .max(64)
    .default('default'),
  /** Who may talk to the agent: nobody until configured. A message from anyone else is ignored and counted. */
  allow: z
    .strictObject({
      /** Platform sender ids (Telegram user id, Slack user id, email address); "*" allows any sender. */
      senders: listOfIds.default([]),
      /** Platform chat ids (Telegram chat, Slack channel, email: the gateway's own address); "*" allows any chat. */
      chats: listOfIds.default([]),
    })
    .prefault({}),
  /** Characters of one inbound message the agent is given; a longer one is refused politely in the chat, nothing stored. */
  maxInboundChars: positiveInt.max(1_000_000).default(8_000),
  /** Bytes of one inbound attachment; a larger one is refused politely in the chat, nothing stored. */
  maxAttachmentBytes: positiveInt.max(104_857_600).default(10_485_760),
  /** Messages one sender may send per minute; past it they are ignored and counted (one notice per minute). */
  senderMessagesPerMinute: positiveInt.max(10_000).default(20),
  /** Replies waiting for delivery at most; past it the oldest is dropped and recorded as a failed delivery. */
  outboundQueueMax: positiveInt.max(100_000).default(200),
  /** A reply's delivery is retried (429 / 5xx / network) with backoff for this long before it is recorded failed. */
  deliveryRetryMs: durationMs(1).default(600_000),
};

export const telegramChannelSchema = z.strictObject({
  kind: z.literal('telegram'),
  ...commonChannelFields,
  /** The bot token (a `${secret:NAME}` reference). */
  token: z.string().min(1),
  /** The Bot API root; tests point it at a fake server. */
  apiBaseUrl: z.url().default('https://api.telegram.org'),
  /** polling: getUpdates long polling; webhook: Telegram posts to `/channels/<id>/telegram` (webhookSecret checked). */
  mode: z.enum(['polling', 'webhook']).default('polling'),
  /** The secret_token Telegram sends with each webhook post (required in webhook mode). */
  webhookSecret: z.string().min(1).max(256).optional(),
});

export const slackChannelSchema = z.strictObject({
  kind: z.literal('slack'),
  ...commonChannelFields,
  /** The bot token `xoxb-…` (a `${secret:NAME}` reference). */
  botToken: z.string().min(1),
  /** events: Slack posts to `/channels/<id>/slack/events`, verified with signingSecret; socket: Socket Mode with appToken. */
  mode: z.enum(['events', 'socket']).default('events'),
  signingSecret: z.string().min(1).optional(),
  /** The app-level token `xapp-…` for Socket Mode. */
  appToken: z.string().min(1).optional(),
  /** The Web API root; tests point it at a fake server. */
  apiBaseUrl: z.url().default('https://slack.com/api/'),
});

const mailServer = z.strictObject({
  host: z.string().min(1),
  port: positiveInt.max(65_535),
  /** TLS from the start (993/465); false: plain or STARTTLS as the server offers. */
  secure: z.boolean().default(true),
  user: z.string().min(1),
  password: z.string().min(1),
});

export const emailChannelSchema = z.strictObject({
  kind: z.literal('email'),
  ...commonChannelFields,
  /** Mail in: IMAP IDLE on `mailbox`. */
  imap: mailServer,
  mailbox: z.string().min(1).default('INBOX'),
  /** Mail out: SMTP. */
  smtp: mailServer,
  /** The From address of replies (also the chat id of this connection). */
  from: z.email(),
});

export const channelConfigSchema = z.discriminatedUnion('kind', [
  telegramChannelSchema,
  slackChannelSchema,
  emailChannelSchema,
]);

export type ChannelConfig = z.infer<typeof channelConfigSchema>;
export type TelegramChannelConfig = z.infer<typeof telegramChannelSchema>;
export type SlackChannelConfig = z.infer<typeof slackChannelSchema>;
export type EmailChannelConfig = z.infer<typeof emailChannelSchema>;
