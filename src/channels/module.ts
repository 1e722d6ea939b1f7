// The channels capability: the connections from `channels` (hot-applied), their endpoint mount, the channels.* methods,
// and the delivery interface heartbeats and approvals use to reach a chat.
import type { Logger } from 'pino';
import type { SaveMedia, TranscribeService } from '../audio/index.js';
import type { CapabilityModule } from '../capability.js';
import type { ConfigStore } from '../config/index.js';
import { channelNotFound, channelUnavailable } from '../errors.js';
import type { EventBus } from '../events/index.js';
import type { DeliveryTracer } from '../obs/index.js';
import type { RunControl } from '../runs/index.js';
import type { SessionPort } from '../store/index.js';
import type { TurnService } from '../turns/index.js';
import { createChatSessions, type ChatRef } from './chat-sessions.js';
import type { ConnectionStatus } from './connection.js';
import { createConnections, type AdapterFactory } from './connections.js';
import { pullInboundHere, pullInboundUnderLease, type InboundLeaseOptions } from './inbound-lease.js';
import { channelMethods } from './methods.js';
import { channelRoutes } from './routes.js';
import type { ApprovalPrompt, InboundApprovalAnswer } from './types.js';

/** How long posting or settling an approval request in a chat may take. */
export const APPROVAL_POST_TIMEOUT_MS = 30_000;

/**
 * What heartbeats and approvals call to reach a chat. `deliver` goes through the connection's outbound path (chunked,
 * queued, retried, a delivery trace recorded) and resolves once delivered or given up on; it never throws for a
 * platform failure. The approval calls go to the adapter directly and throw `not_found` / `unavailable` for a
 * connection that is not configured / not running, or the platform's DeliveryFailure.
 */
export interface ChannelDelivery {
  deliver(input: ChatRef & { text: string }): Promise<{ delivered: boolean; error?: string }>;
  /** The chat a channel session belongs to (the session's metadata); undefined for any other session. */
  forSession(sessionKey: string): Promise<ChatRef | undefined>;
  askApproval(channelId: string, prompt: ApprovalPrompt): Promise<{ messageId: string }>;
  settleApproval(
    channelId: string,
    prompt: ApprovalPrompt & { messageId: string; approved: boolean; by: string },
  ): Promise<void>;
  /** Calls `listener` with each approve/deny answered in a chat (a button, an email reply); returns the unsubscribe. */
  onApprovalAnswer(listener: (channelId: string, answer: InboundApprovalAnswer) => void): () => void;
}

export interface ChannelsModule extends CapabilityModule {
  readonly delivery: ChannelDelivery;
  /** The configured connections' statuses (GET /api/channels). */
  statuses(): ConnectionStatus[];
}

export interface ChannelsModuleDeps {
  config: Pick<ConfigStore, 'get' | 'onChange'>;
  createAdapter: AdapterFactory;
  /** With replicas, the leases that let one replica at a time pull a connection's inbound; absent: this one pulls. */
  inboundLeases?: Omit<InboundLeaseOptions, 'log'>;
  turns: Pick<TurnService, 'run' | 'ensureSession'>;
  sessions: Pick<SessionPort, 'get' | 'updateMetadata'>;
  runControl: Pick<RunControl, 'startRun'>;
  transcribe?: TranscribeService;
  saveMedia: SaveMedia;
  events: EventBus;
  delivery: Pick<DeliveryTracer, 'record'>;
  observe: (observed: { traceId: string; outcome: 'success' | 'failure'; source: 'reaction' }) => Promise<unknown>;
  /** Retry waits of the outbound path; tests shorten them. */
  outboundBackoff?: { baseMs: number; maxMs: number };
  newId: () => string;
  now: () => number;
  log: Logger;
}

export function createChannelsModule(deps: ChannelsModuleDeps): ChannelsModule {
  const { log } = deps;
  const shutdown = new AbortController();
  const approvalListeners = new Set<(channelId: string, answer: InboundApprovalAnswer) => void>();
  const chats = createChatSessions({ turns: deps.turns, sessions: deps.sessions, now: deps.now });
  const connections = createConnections({
    services: {
      chats,
      turns: deps.turns,
      runControl: deps.runControl,
      ...(deps.transcribe === undefined ? {} : { transcribe: deps.transcribe }),
      saveMedia: deps.saveMedia,
      events: deps.events,
      delivery: deps.delivery,
      observe: deps.observe,
      onApprovalAnswer(channelId, answer) {
        for (const listener of approvalListeners) listener(channelId, answer);
      },
      ...(deps.outboundBackoff === undefined ? {} : { outboundBackoff: deps.outboundBackoff }),
      shutdownSignal: shutdown.signal,
      newId: deps.newId,
      now: deps.now,
    },
    createAdapter: deps.createAdapter,
    pullInboundOf: (channelId) =>
      deps.inboundLeases === undefined
        ? pullInboundHere
        : pullInboundUnderLease(channelId, { ...deps.inboundLeases, log }),
    now: deps.now,
    log,
  });
  let unsubscribe: (() => void) | undefined;

  function running(channelId: string) {
    if (!connections.has(channelId)) throw channelNotFound(channelId);
    const connection = connections.get(channelId);
    if (connection === undefined) throw channelUnavailable(channelId, 'it is disabled or failed to start');
    return connection;
  }

  const apply = (configs: Parameters<typeof connections.apply>[0]) =>
    void connections
      .apply(configs)
      .catch((error: unknown) => log.error({ err: error }, 'applying the channels config failed'));

  const delivery: ChannelDelivery = {
    async deliver({ channelId, chatId, threadId, text }) {
      const connection = connections.get(channelId);
      if (connection === undefined) return { delivered: false, error: `channel ${channelId} is not running` };
      const outcome = await connection.send(
        { channelId, chatId, ...(threadId === undefined ? {} : { threadId }) },
        text,
      );
      return { delivered: outcome.delivered, ...(outcome.error === undefined ? {} : { error: outcome.error }) };
    },
    forSession: (sessionKey) => chats.forSession(sessionKey),
    askApproval: (channelId, prompt) =>
      running(channelId).adapter.askApproval(prompt, AbortSignal.timeout(APPROVAL_POST_TIMEOUT_MS)),
    settleApproval: (channelId, prompt) => running(channelId).adapter.settleApproval(prompt),
    onApprovalAnswer(listener) {
      approvalListeners.add(listener);
      return () => approvalListeners.delete(listener);
    },
  };

  return {
    name: 'channels',
    methods: channelMethods(connections),
    routes: channelRoutes(connections),
    delivery,
    statuses: () => connections.statuses(),
    start() {
      // Not awaited: a platform that is slow to answer must not hold the gateway's start; states show progress.
      apply(deps.config.get().channels);
      unsubscribe = deps.config.onChange((change) => {
        if (change.sections.includes('channels')) apply(change.config.channels);
      });
    },
    async stop() {
      unsubscribe?.();
      shutdown.abort();
      await connections.stop();
    },
  };
}
