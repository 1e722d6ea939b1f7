// One live channel connection: its adapter started with the core's handlers (inbound, reactions, approvals, health),
// its outbound path, its counters and state for channels.list, and its HTTP endpoints (an inner Fastify instance).
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { SaveMedia, TranscribeService } from '../audio/index.js';
import type { ChannelConfig } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import type { DeliveryTracer } from '../obs/index.js';
import type { RunControl } from '../runs/index.js';
import { restErrorHandler } from '../server/index.js';
import type { TurnRunner } from '../turns/index.js';
import type { ChatRef, ChatSessions } from './chat-sessions.js';
import { createChatTurn } from './chat-turn.js';
import { createInbound, isAllowed } from './inbound.js';
import { createOutbound, type DeliveryOutcome, type OutboundReply } from './outbound.js';
import { createRecentMap } from '../recent-map.js';
import { createSenderRate } from './sender-rate.js';
import type { ChannelAdapter, ChannelAdapterEvents, ChannelHealth, InboundApprovalAnswer } from './types.js';

/** Replies whose turn a reaction can still be traced to, per connection. */
export const REMEMBERED_REPLIES = 10_000;

export type ConnectionState = ChannelHealth | 'failed';

export interface ConnectionStatus {
  id: string;
  kind: ChannelConfig['kind'];
  agentId: string;
  enabled: boolean;
  state: ConnectionState | 'disabled';
  /** Epoch ms of the last message in or reply out; null before the first. */
  lastActivityAt: number | null;
  error?: string;
  /** Since the connection started (a restart or config change that restarts it counts afresh). */
  received: number;
  sent: number;
  ignored: number;
  failedDeliveries: number;
}

/** What every connection shares: the gateway's services. */
export interface ConnectionServices {
  chats: ChatSessions;
  turns: TurnRunner;
  runControl: Pick<RunControl, 'startRun'>;
  transcribe?: TranscribeService;
  saveMedia: SaveMedia;
  events: EventBus;
  delivery: Pick<DeliveryTracer, 'record'>;
  /** Learning's observe: a reaction to a reply becomes its turn's outcome. */
  observe: (observed: { traceId: string; outcome: 'success' | 'failure'; source: 'reaction' }) => Promise<unknown>;
  /** An operator's answer to an approval request posted in a chat (the approvals bridge subscribes). */
  onApprovalAnswer: (channelId: string, answer: InboundApprovalAnswer) => void;
  outboundBackoff?: { baseMs: number; maxMs: number };
  shutdownSignal: AbortSignal;
  newId: () => string;
  now: () => number;
}

export interface Connection {
  readonly id: string;
  readonly config: ChannelConfig;
  readonly adapter: ChannelAdapter;
  /** The adapter's endpoints, mounted under `/channels/<id>/`; undefined when it has none. */
  readonly http: FastifyInstance | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): ConnectionStatus;
  /** Sends a text through the outbound path (chunked, queued, retried). */
  send(chat: ChatRef, text: string): Promise<DeliveryOutcome>;
}

export function createConnection(
  id: string,
  config: ChannelConfig,
  adapter: ChannelAdapter,
  services: ConnectionServices,
  log: Logger,
): Connection {
  const { events, now } = services;
  const stopping = new AbortController();
  const signal = AbortSignal.any([stopping.signal, services.shutdownSignal]);
  const counters = { received: 0, sent: 0, ignored: 0, failedDeliveries: 0 };
  let state: ConnectionState = 'connecting';
  let error: string | undefined;
  let degradedCount = 0;
  let lastActivityAt: number | null = null;
  let http: FastifyInstance | undefined;
  let registered = false;
  /** `<chatId>\0<messageId>` of each reply chunk sent → the trace of the turn it answered. */
  const replies = createRecentMap<string, string>(REMEMBERED_REPLIES);
  const scope = () => ({ channelId: id, channelType: config.kind, tenantId: config.tenantId, agentId: config.agentId });

  function setHealth(next: ConnectionState, why?: string): void {
    if (next === state && why === error) return;
    state = next;
    error = why;
    if (next === 'degraded' || next === 'failed') degradedCount += 1;
    if (next === 'connected') degradedCount = 0;
    events.emit('diagnostic:channel_health', { channelId: id, count: degradedCount, status: next });
    if (why !== undefined) log.warn({ state: next, reason: why }, 'channel connection health changed');
  }

  const outbound = createOutbound({
    adapter,
    limits: () => config,
    now,
    log,
    ...(services.outboundBackoff === undefined ? {} : { backoff: services.outboundBackoff }),
    events: {
      chunkSent(reply, messageId) {
        counters.sent += 1;
        lastActivityAt = now();
        if (reply.origin !== undefined) replies.set(`${reply.chatId}\u0000${messageId}`, reply.origin.traceId);
      },
      replyDone(reply, outcome) {
        if (!outcome.delivered) counters.failedDeliveries += 1;
        services.delivery.record({
          channelId: id,
          channelType: config.kind,
          outcome: outcome.delivered ? 'success' : 'failure',
          latencyMs: outcome.latencyMs,
          ...(reply.origin === undefined ? {} : { sessionKey: reply.origin.sessionKey, traceId: reply.origin.traceId }),
          ...(outcome.errorKind === undefined ? {} : { errorKind: outcome.errorKind }),
        });
      },
    },
  });
  const reply = (message: OutboundReply) => void outbound.enqueue(message);
  const runTurn = createChatTurn({
    scope,
    adapter,
    chats: services.chats,
    turns: services.turns,
    runControl: services.runControl,
    ...(services.transcribe === undefined ? {} : { transcribe: services.transcribe }),
    saveMedia: services.saveMedia,
    reply,
    signal,
    newId: services.newId,
    now,
    log,
  });
  const inbound = createInbound({
    config: () => config,
    rate: createSenderRate(now),
    runTurn,
    startNew: (message) =>
      services.chats.startNew(scope(), message.senderId, {
        channelId: id,
        chatId: message.chatId,
        ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
      }),
    notify: (message, text) =>
      reply({
        chatId: message.chatId,
        text,
        replyTo: message.messageId,
        ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
      }),
    ignored: () => (counters.ignored += 1),
    accepted: () => (counters.received += 1),
    signal,
    log,
  });

  const handlers: ChannelAdapterEvents = {
    message(message) {
      lastActivityAt = now();
      inbound.accept(message);
    },
    reaction(reaction) {
      lastActivityAt = now();
      if (!isAllowed(config.allow, reaction.senderId, reaction.chatId)) {
        counters.ignored += 1;
        return;
      }
      if (reaction.polarity === 'other') return;
      const traceId = replies.get(`${reaction.chatId}\u0000${reaction.messageId}`);
      if (traceId === undefined) return;
      const outcome = reaction.polarity === 'positive' ? 'success' : 'failure';
      services
        .observe({ traceId, outcome, source: 'reaction' })
        .catch((failure: unknown) => log.warn({ err: failure }, 'reaction not recorded as an outcome'));
    },
    approval(answer) {
      lastActivityAt = now();
      services.onApprovalAnswer(id, answer);
    },
    health(next, why) {
      setHealth(next, why);
    },
  };

  return {
    id,
    config,
    adapter,
    get http() {
      return http;
    },
    async start() {
      const routes = adapter.routes;
      if (routes !== undefined) {
        const inner = Fastify({ logger: false });
        // Errors the adapter's routes throw (a bad secret, a malformed body) answer as the gateway's own routes do.
        inner.setErrorHandler(restErrorHandler(log));
        await inner.register(async (scoped) => routes(scoped), { prefix: `/channels/${id}` });
        await inner.ready();
        http = inner;
      }
      try {
        await adapter.start(handlers);
      } catch (failure) {
        setHealth('failed', failure instanceof Error ? failure.message : String(failure));
        throw failure;
      }
      registered = true;
      events.emit('channel:registered', { channelId: id, channelType: config.kind });
    },
    async stop() {
      stopping.abort();
      try {
        await adapter.stop();
      } finally {
        await inbound.idle();
        await outbound.stop();
        await http?.close();
        http = undefined;
        setHealth('disconnected');
        if (registered) events.emit('channel:deregistered', { channelId: id });
        registered = false;
      }
    },
    status() {
      return {
        id,
        kind: config.kind,
        agentId: config.agentId,
        enabled: true,
        state,
        lastActivityAt,
        ...(error === undefined ? {} : { error }),
        ...counters,
      };
    },
    send(chat, text) {
      return outbound.enqueue({
        chatId: chat.chatId,
        text,
        ...(chat.threadId === undefined ? {} : { threadId: chat.threadId }),
      });
    },
  };
}
