// The Telegram channel adapter on grammy: polling or webhook in, Bot API calls out, health as the connection fares.
import { Bot } from 'grammy';
import type { Logger } from 'pino';
import type { TelegramChannelConfig } from '../../config/index.js';
import type { ApprovalPrompt, ChannelAdapter, ChannelAdapterEvents, ChannelHealth, OutboundMessage } from '../types.js';
import { approvalKeyboard, approvalText, decisionLine, settledText, TELEGRAM_MAX_MESSAGE_CHARS } from './approvals.js';
import { attachmentsOf, type FileSource } from './attachments.js';
import { deliver, TelegramDeliveryFailure, toDeliveryFailure } from './delivery-failure.js';
import { grammySignal } from './grammy-signal.js';
import { pullInboundHere, type InboundHold, type PullInbound } from '../inbound-lease.js';
import { pause } from '../pause.js';
import { DEGRADED_AFTER_FAILURES, POLL_TIMEOUT_SECONDS, backoffMs, startPolling, type Poller } from './polling.js';
import { dispatchUpdate, type CallbackQuery, type UpdateContext } from './updates.js';
import { telegramWebhookRoutes } from './webhook-route.js';

export interface TelegramAdapterDeps {
  channelId: string;
  now: () => number;
  log: Logger;
  /** Where polling mode's getUpdates loop runs (one replica at a time); default: here. */
  pullInbound?: PullInbound;
  fetchImpl?: never;
}

/** A Bot API call's own limit: the long poll's wait plus room for a slow answer. */
const CALL_TIMEOUT_SECONDS = POLL_TIMEOUT_SECONDS + 30;

/** Telegram numbers chats, messages and topics; the core carries them as strings. */
function numeric(value: string | undefined): number | undefined {
  if (value === undefined || !/^-?\d+$/.test(value)) return undefined;
  return Number(value);
}

function threadOption(threadId: string | undefined) {
  const thread = numeric(threadId);
  return thread === undefined ? {} : { message_thread_id: thread };
}

function replyOption(replyTo: string | undefined) {
  const messageId = numeric(replyTo);
  return messageId === undefined
    ? {}
    : { reply_parameters: { message_id: messageId, allow_sending_without_reply: true } };
}

/** Telegram answers an edit that changes nothing with 400 "message is not modified": the message already says it. */
function isNotModified(error: unknown): boolean {
  return error instanceof Error && /message is not modified/i.test(error.message);
}

export function createTelegramAdapter(config: TelegramChannelConfig, deps: TelegramAdapterDeps): ChannelAdapter {
  const { channelId, log } = deps;
  // grammy refuses an apiRoot with a trailing slash; a URL from config may carry one.
  const apiRoot = config.apiBaseUrl.replace(/\/+$/, '');
  const bot = new Bot(config.token, { client: { apiRoot, timeoutSeconds: CALL_TIMEOUT_SECONDS } });
  const { api } = bot;
  const files: FileSource = { api, fileRoot: `${apiRoot}/file/bot${config.token}` };

  let events: ChannelAdapterEvents | undefined;
  let state: ChannelHealth = 'disconnected';
  let failuresInARow = 0;
  let botUsername: string | undefined;
  let poller: Poller | undefined;
  let inbound: InboundHold | undefined;
  let connecting: { abort: AbortController; done: Promise<void> } | undefined;
  /** Callback answers still in flight; stop() waits for them (each has its own abort). */
  const background = new Set<Promise<void>>();
  let backgroundAbort = new AbortController();

  function report(next: ChannelHealth, error?: string): void {
    if (next === state && next !== 'degraded') return;
    state = next;
    events?.health(next, error);
  }

  const health = {
    succeeded() {
      failuresInARow = 0;
      report('connected');
    },
    failed(error: unknown) {
      failuresInARow += 1;
      if (failuresInARow >= DEGRADED_AFTER_FAILURES) report('degraded', toDeliveryFailure(error).message);
    },
  };

  async function identify(signal: AbortSignal): Promise<void> {
    if (botUsername !== undefined) return;
    const me = await api.getMe(grammySignal(signal));
    botUsername = me.username;
  }

  function answerCallback(query: CallbackQuery): void {
    const answered = api
      .answerCallbackQuery(query.id, undefined, grammySignal(backgroundAbort.signal))
      .then(() => undefined)
      .catch((error: unknown) =>
        log.debug({ channelId, err: toDeliveryFailure(error).message }, 'callback not answered'),
      )
      .finally(() => background.delete(answered));
    background.add(answered);
  }

  function dispatch(update: unknown): void {
    if (events === undefined) return;
    const context: UpdateContext = {
      events,
      now: deps.now,
      botUsername: () => botUsername,
      attachmentsOf: (message) => attachmentsOf(files, message),
      answerCallback,
    };
    try {
      if (!dispatchUpdate(update, context))
        log.warn({ channelId }, 'telegram update not in the documented shape: skipped');
    } catch (error) {
      // A listener that throws must not end the poll loop nor fail Telegram's webhook post; the update is not retried.
      log.error({ channelId, err: error instanceof Error ? error.name : 'unknown' }, 'telegram update not handled');
    }
  }

  /**
   * Webhook mode, and polling mode while another replica polls: getMe until it answers (the bot's username), reporting
   * health as polling does.
   */
  function identifyForHealth(): void {
    connecting?.abort.abort();
    const abort = new AbortController();
    const done = (async () => {
      while (!abort.signal.aborted) {
        try {
          await identify(abort.signal);
          health.succeeded();
          return;
        } catch (error) {
          if (abort.signal.aborted) return;
          health.failed(error);
          await pause(backoffMs(failuresInARow, error), abort.signal);
        }
      }
    })();
    connecting = { abort, done };
  }

  const isWebhook = config.mode === 'webhook';
  const hasSecret = config.webhookSecret !== undefined;
  /**
   * In webhook mode nothing polls, so the calls out are what tell whether Telegram is reachable. A 429 (Telegram pacing)
   * and a 4xx (one chat's problem) say nothing about the connection; in polling mode the poll alone reports it.
   */
  const isHealthFromDeliveries = isWebhook && hasSecret;

  async function tracked<T>(call: () => Promise<T>): Promise<T> {
    try {
      const result = await deliver(call);
      if (isHealthFromDeliveries && events !== undefined) health.succeeded();
      return result;
    } catch (error) {
      const failure = toDeliveryFailure(error);
      const isConnectionFailure = failure.retryable && failure.retryAfterMs === undefined;
      if (isHealthFromDeliveries && events !== undefined && isConnectionFailure) health.failed(failure);
      throw failure;
    }
  }

  async function sendText(message: OutboundMessage, extra: object, signal: AbortSignal) {
    const sent = await tracked(() =>
      api.sendMessage(
        message.chatId,
        message.text,
        { ...threadOption(message.threadId), ...replyOption(message.replyTo), ...extra },
        grammySignal(signal),
      ),
    );
    return { messageId: String(sent.message_id) };
  }

  return {
    kind: 'telegram',
    maxMessageChars: TELEGRAM_MAX_MESSAGE_CHARS,

    async start(listener) {
      events = listener;
      backgroundAbort = new AbortController();
      state = 'disconnected';
      failuresInARow = 0;
      report('connecting');
      // Nothing can reach a webhook without its secret: degraded until the config names one, whatever getMe says.
      if (isWebhook && !hasSecret)
        report('degraded', 'webhook mode needs webhookSecret: every post is refused until it is set');
      else if (isWebhook) identifyForHealth();
      else
        inbound = (deps.pullInbound ?? pullInboundHere)({
          start() {
            poller = startPolling({ api, log, health, dispatch, identify });
          },
          async stop() {
            await poller?.stop();
            poller = undefined;
          },
          standby: identifyForHealth,
        });
    },

    async stop() {
      const listener = events;
      // From here no update reaches the core, even one a poll in flight still returns.
      events = undefined;
      connecting?.abort.abort();
      backgroundAbort.abort();
      await Promise.all([inbound?.stop(), connecting?.done, ...background]);
      inbound = undefined;
      connecting = undefined;
      state = 'disconnected';
      listener?.health('disconnected');
    },

    send: (message, signal) => sendText(message, {}, signal),

    async typing(chatId, threadId) {
      await tracked(() => api.sendChatAction(chatId, 'typing', threadOption(threadId)));
    },

    askApproval: (prompt: ApprovalPrompt, signal) =>
      sendText(
        {
          chatId: prompt.chatId,
          text: approvalText(prompt),
          ...(prompt.threadId === undefined ? {} : { threadId: prompt.threadId }),
        },
        { reply_markup: approvalKeyboard(prompt) },
        signal,
      ),

    async settleApproval(settled) {
      const messageId = numeric(settled.messageId);
      try {
        // Not a message id Telegram gave: nothing to edit, so the decision is posted instead (below).
        if (messageId === undefined) throw new TelegramDeliveryFailure('not a Telegram message id', false);
        // An empty keyboard removes the buttons: the request cannot be pressed again once decided.
        await tracked(() =>
          api.editMessageText(settled.chatId, messageId, settledText(settled, settled.approved, settled.by), {
            reply_markup: { inline_keyboard: [] },
          }),
        );
      } catch (error) {
        if (isNotModified(error)) return;
        const failure = toDeliveryFailure(error);
        if (failure.retryable) throw failure;
        // Too old to edit (48 h) or deleted: say it in the chat instead, under the request when it is still there.
        await sendText(
          {
            chatId: settled.chatId,
            text: `${settled.toolName} (code ${settled.code}): ${decisionLine(settled.approved, settled.by)}`,
            ...(settled.threadId === undefined ? {} : { threadId: settled.threadId }),
            ...(messageId === undefined ? {} : { replyTo: settled.messageId }),
          },
          {},
          AbortSignal.timeout(CALL_TIMEOUT_SECONDS * 1000),
        );
      }
    },

    async test(signal) {
      const me = await deliver(() => api.getMe(grammySignal(signal)));
      return { detail: `@${me.username} (bot id ${me.id})` };
    },

    ...(isWebhook
      ? {
          routes: telegramWebhookRoutes({
            secret: config.webhookSecret,
            accept(update) {
              if (events === undefined) return false;
              dispatch(update);
              return true;
            },
          }),
        }
      : {}),
  };
}
