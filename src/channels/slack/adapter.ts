// The Slack channel adapter: replies and approval buttons through @slack/web-api, inbound events either from the
// Events API routes (signed HTTP posts) or over Socket Mode (@slack/socket-mode), health as the core expects it.
import { WebClient, type FetchFunction, type WebClientOptions } from '@slack/web-api';
import type { Logger } from 'pino';
import type { SlackChannelConfig } from '../../config/index.js';
import type { ApprovalPrompt, ChannelAdapter, ChannelAdapterEvents, OutboundMessage } from '../types.js';
import { approvalRequestMessage, approvalSettledMessage, escapeSlackText } from './approval-blocks.js';
import { slackEventsRoutes } from './events-routes.js';
import { createHealthTracker } from './health.js';
import { createRecentIds, handleEventsPayload, handleInteractivePayload, type InboundContext } from './inbound.js';
import { slackLibraryLogger } from './library-logger.js';
import { createSocketLink, type SocketLink } from './socket-link.js';
import {
  slackAdapterStopped,
  slackConfigIncomplete,
  slackTestFailed,
  toDeliveryFailure,
  type SlackDeliveryFailure,
} from './slack-errors.js';

/**
 * Slack advises keeping a message's text within 4,000 characters (clients collapse longer ones, and the API cuts
 * text at 40,000); 3,900 keeps each chunk under that with room for the &amp; / &lt; / &gt; escapes added on send.
 */
export const SLACK_MAX_MESSAGE_CHARS = 3_900;

/** One Web API call may take this long; the core's own signal usually ends it sooner. */
export const SLACK_CALL_TIMEOUT_MS = 30_000;

export interface SlackAdapterDeps {
  channelId: string;
  now: () => number;
  log: Logger;
  fetchImpl?: never;
}

/** Resolves or rejects with `call`, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(call: () => Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(toDeliveryFailure(signal.reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(toDeliveryFailure(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    call()
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function createSlackAdapter(config: SlackChannelConfig, deps: SlackAdapterDeps): ChannelAdapter {
  const { now } = deps;
  const log = deps.log.child({ channelId: deps.channelId, channelKind: 'slack' });
  if (config.mode === 'events' && config.signingSecret === undefined)
    throw slackConfigIncomplete('signingSecret', 'events');
  if (config.mode === 'socket' && config.appToken === undefined) throw slackConfigIncomplete('appToken', 'socket');

  const health = createHealthTracker();
  /** Ends every Web API request in flight at stop(); replaced at each start(). */
  let lifetime = new AbortController();
  let events: ChannelAdapterEvents | undefined;
  let botUserId: string | undefined;
  let socket: SocketLink | undefined;
  const firstDelivery = createRecentIds();

  const boundFetch: FetchFunction = (url, init) =>
    fetch(url, {
      ...init,
      signal: init?.signal === undefined ? lifetime.signal : AbortSignal.any([init.signal, lifetime.signal]),
    });

  const clientOptions: Omit<WebClientOptions, 'logLevel' | 'logger'> = {
    slackApiUrl: config.apiBaseUrl,
    // The core retries deliveries with its own backoff and queue; a 429 surfaces at once with its Retry-After.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: SLACK_CALL_TIMEOUT_MS,
    fetch: boundFetch,
  };
  const web = new WebClient(config.botToken, { ...clientOptions, logger: slackLibraryLogger(log) });

  function inboundContext(): InboundContext {
    if (events === undefined) throw slackAdapterStopped();
    return { events, botUserId, now, firstDelivery, botToken: config.botToken, apiBaseUrl: config.apiBaseUrl };
  }

  /** A Web API call counted for health; its failure thrown as a DeliveryFailure. */
  async function call<T>(run: () => Promise<T>, signal: AbortSignal): Promise<T> {
    try {
      const result = await untilAborted(run, signal);
      health.callSucceeded();
      return result;
    } catch (error) {
      const failure = toDeliveryFailure(error);
      // The core's own abort is no failure of Slack's.
      if (!signal.aborted) health.callFailed(failure);
      throw failure;
    }
  }

  function onEnvelope(type: string, body: unknown): void {
    if (type === 'events_api') handleEventsPayload(body, inboundContext());
    else if (type === 'interactive') handleInteractivePayload(body, inboundContext());
  }

  async function postMessage(message: Record<string, unknown> & { channel: string }, signal: AbortSignal) {
    const result = await call(() => web.chat.postMessage({ ...message, text: String(message.text ?? '') }), signal);
    if (typeof result.ts !== 'string') throw toDeliveryFailure(new Error('Slack answered without the message ts'));
    return { messageId: result.ts };
  }

  const adapter: ChannelAdapter = {
    kind: 'slack',
    maxMessageChars: SLACK_MAX_MESSAGE_CHARS,

    async start(target) {
      if (lifetime.signal.aborted) lifetime = new AbortController();
      events = target;
      health.attach(target);
      if (config.mode === 'socket' && config.appToken !== undefined) {
        socket = createSocketLink({ appToken: config.appToken, clientOptions, health, log, onEnvelope });
        socket.start();
      } else health.connecting();
      try {
        const identity = await web.auth.test();
        botUserId = identity.user_id;
        if (config.mode === 'events') health.connected();
      } catch (error) {
        const failure: SlackDeliveryFailure = toDeliveryFailure(error);
        log.warn({ err: failure }, 'slack: auth.test failed at start');
        if (config.mode === 'events') health.checkFailed(failure);
        else health.callFailed(failure);
      }
    },

    async stop() {
      lifetime.abort();
      await socket?.stop();
      socket = undefined;
      if (events !== undefined) health.disconnected();
      events = undefined;
    },

    send(message: OutboundMessage, signal) {
      return postMessage(
        {
          channel: message.chatId,
          text: escapeSlackText(message.text),
          ...(message.threadId === undefined ? {} : { thread_ts: message.threadId }),
          unfurl_links: false,
        },
        signal,
      );
    },

    // Slack offers bots no typing indicator in the Web API (only the legacy RTM socket had one).
    typing: async () => {},

    askApproval(prompt: ApprovalPrompt, signal) {
      return postMessage(
        {
          channel: prompt.chatId,
          ...approvalRequestMessage(prompt),
          ...(prompt.threadId === undefined ? {} : { thread_ts: prompt.threadId }),
        },
        signal,
      );
    },

    async settleApproval(prompt) {
      await call(
        () => web.chat.update({ channel: prompt.chatId, ts: prompt.messageId, ...approvalSettledMessage(prompt) }),
        AbortSignal.timeout(SLACK_CALL_TIMEOUT_MS),
      );
    },

    async test(signal) {
      try {
        const identity = await call(() => web.auth.test(), signal);
        return {
          detail: `Slack: signed in as ${identity.user ?? '?'} (${identity.user_id ?? '?'}) in ${identity.team ?? '?'}`,
        };
      } catch (error) {
        throw slackTestFailed(toDeliveryFailure(error));
      }
    },

    ...(config.mode === 'events' && config.signingSecret !== undefined
      ? { routes: slackEventsRoutes({ signingSecret: config.signingSecret, now, log, context: inboundContext }) }
      : {}),
  };
  return adapter;
}
