// The channel adapter contract: what one chat-platform connection (Telegram, Slack, email) gives the channel core and
// what the core asks of it. Adapters speak their platform through its own library; the core owns turns, sessions,
// allow-lists, rate limits, chunking, the outbound queue, approvals in chats, evidence and health.
import type { RouteRegistrar } from '../capability.js';

export type ChannelKind = 'telegram' | 'slack' | 'email';

/** A file that came with a message; fetched only after the core checked its size against the channel's cap. */
export interface InboundAttachment {
  kind: 'audio' | 'image' | 'file';
  mimeType: string;
  name?: string;
  /** As the platform states it; the fetch is cut off past the cap whatever this says. */
  bytes: number;
  fetch(maxBytes: number, signal: AbortSignal): Promise<Buffer>;
}

export interface InboundMessage {
  /** The platform's chat: Telegram chat id, Slack channel id, email: the sender's address (one thread per sender). */
  chatId: string;
  /** The platform's sender: Telegram user id, Slack user id, email address. */
  senderId: string;
  /** The platform's id of this message (replies and reactions point at it). */
  messageId: string;
  /** Slack thread ts, email thread root Message-ID: replies go into the same thread. */
  threadId?: string;
  text: string;
  attachments: readonly InboundAttachment[];
  receivedAt: number;
}

/** A reaction to one of the gateway's replies. */
export interface InboundReaction {
  chatId: string;
  senderId: string;
  /** The platform id of the reply reacted to (as `send` returned it). */
  messageId: string;
  /** 👍 and its platform names are positive, 👎 negative; anything else is recorded but is no outcome. */
  polarity: 'positive' | 'negative' | 'other';
  raw: string;
}

/** An operator's answer to an approval request posted in a chat (a button, or an email reply "approve <code>"). */
export interface InboundApprovalAnswer {
  chatId: string;
  senderId: string;
  /** The approval request's id (buttons carry it) or its short code (typed replies). */
  requestRef: string;
  approved: boolean;
}

export interface OutboundMessage {
  chatId: string;
  text: string;
  threadId?: string;
  /** The inbound message answered (email: In-Reply-To / References). */
  replyTo?: string;
}

export interface ApprovalPrompt {
  chatId: string;
  threadId?: string;
  requestId: string;
  /** A short code the operator may type back (`approve 7Q2K`). */
  code: string;
  toolName: string;
  /** What the call does, shown to the operator (arguments summarised, never secrets). */
  summary: string;
}

/** Raised by `send`/`askApproval` when the platform refused: retryable on 429 and 5xx and network failures. */
export interface DeliveryFailure extends Error {
  retryable: boolean;
  /** The platform's own wait (429 retry_after / Retry-After), when it named one. */
  retryAfterMs?: number;
}

export type ChannelHealth = 'connecting' | 'connected' | 'degraded' | 'disconnected';

/** What an adapter tells the core; the core never blocks the adapter (each call returns at once). */
export interface ChannelAdapterEvents {
  message(message: InboundMessage): void;
  reaction(reaction: InboundReaction): void;
  approval(answer: InboundApprovalAnswer): void;
  health(state: ChannelHealth, error?: string): void;
}

export interface ChannelAdapter {
  readonly kind: ChannelKind;
  /** Characters one platform message may carry; longer replies are chunked by the core. */
  readonly maxMessageChars: number;
  /** Connects (polling loop, socket, IMAP IDLE) and reports through `events` until stop(). */
  start(events: ChannelAdapterEvents): Promise<void>;
  /** Disconnects; resolves once nothing of the connection runs. */
  stop(): Promise<void>;
  /** Sends one chunk; resolves to the platform's id of the sent message. Throws a DeliveryFailure. */
  send(message: OutboundMessage, signal: AbortSignal): Promise<{ messageId: string }>;
  /** Shows the typing indicator once (the core repeats it while the turn runs); platforms without one resolve. */
  typing(chatId: string, threadId?: string): Promise<void>;
  /** Posts an approval request with approve/deny controls; resolves to its message id. */
  askApproval(prompt: ApprovalPrompt, signal: AbortSignal): Promise<{ messageId: string }>;
  /** Edits (or follows up) a posted request once it is decided, wherever it was decided. */
  settleApproval(prompt: ApprovalPrompt & { messageId: string; approved: boolean; by: string }): Promise<void>;
  /** A cheap authenticated call (getMe, auth.test, SMTP verify) for channels.test. */
  test(signal: AbortSignal): Promise<{ detail: string }>;
  /** Inbound HTTP endpoints (Telegram webhook mode, Slack events), mounted under `/channels/<id>/`. */
  readonly routes?: RouteRegistrar;
}
