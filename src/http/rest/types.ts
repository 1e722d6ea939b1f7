// What the /api REST and SSE routes need from the rest of the gateway.
import type { EventBus } from '../../events/index.js';
import type { Logger } from 'pino';
import type { AgentRegistry } from '../../agents/index.js';
import type { ConnectionStatus } from '../../channels/index.js';
import type { EventFeed } from '../../coordination/index.js';
import type { ChannelActivity } from '../../obs/index.js';
import type { ModelRouter } from '../../providers/index.js';
import type { RequestAuth } from '../../server/index.js';
import type { SessionPort } from '../../sessions/index.js';
import type { TurnRunner } from '../../turns/index.js';

export interface RestRoutesDeps {
  auth: RequestAuth;
  runner: TurnRunner;
  agents: Pick<AgentRegistry, 'get' | 'list'>;
  /** Fills an agent's provider when its config names only a model (GET /api/agents). */
  router: Pick<ModelRouter, 'resolve'>;
  sessions: Pick<SessionPort, 'get' | 'list' | 'history'>;
  events: EventBus;
  /** Recorded channel activity (obs), merged into GET /api/channels. */
  channelActivity: { all(): Promise<ChannelActivity[]> };
  log: Logger;
  /** Open WebSocket connections, shown on the rpc channel of GET /api/channels. */
  wsConnections?: () => number;
  /** Whether POST /hooks/webhook is mounted now (gateway.webhook applies live); GET /api/channels lists it then. */
  isWebhookEnabled?: () => boolean;
  /** The chat-platform connections under `channels` (src/channels), listed by GET /api/channels after the surfaces. */
  chatConnections?: () => readonly ConnectionStatus[];
  /** Aborted at shutdown: in-flight turns stop and open streams end. */
  shutdownSignal?: AbortSignal;
  /** SSE comment ping interval (spec "Limits": 15 s). */
  keepAliveMs?: number;
  /** Reconnect delay advertised first on /api/events (spec "Limits": 3 s). */
  retryMs?: number;
  /** Events /api/events keeps to replay on reconnect (gateway.sseReplayEvents); default 1000. */
  replayEvents?: number;
  /**
   * The /api/events feed shared by every replica (coordination: redis); absent, this process numbers its own
   * events in a ring of `replayEvents`.
   */
  eventFeed?: EventFeed;
  /** Clock (epoch ms); /api/events ids start from it. Default Date.now. */
  now?: () => number;
  /** Where the open SSE streams are kept while they last (the metrics count them); default a set of the routes' own. */
  openStreams?: Set<{ close(): void }>;
}

export interface RestContext extends RestRoutesDeps {
  shutdownSignal: AbortSignal;
  keepAliveMs: number;
  retryMs: number;
  openStreams: Set<{ close(): void }>;
  /** Events a reconnecting /api/events client may be replayed at most. */
  replayCapacity: number;
}
