// The dashboard's REST API and SSE streams under /api; errors use the root REST envelope {error: {code, message}}.
import type { FastifyInstance } from 'fastify';
import type { EventFeed } from '../../coordination/index.js';
import { endStreamsOnClose, SSE_KEEP_ALIVE_MS, SSE_RETRY_MS } from '../../server/index.js';
import { registerActivityRoute } from './activity.js';
import { registerAgentsRoute } from './agents.js';
import { registerChannelsRoute } from './channels.js';
import { registerChatRoutes } from './chat.js';
import { createEventRing } from './event-ring.js';
import { registerEventsRoute } from './events.js';
import type { RestContext, RestRoutesDeps } from './types.js';

export type { RestRoutesDeps } from './types.js';
/** Events /api/events keeps for replay when the caller does not say (gateway.sseReplayEvents' default). */
const DEFAULT_REPLAY_EVENTS = 1000;

/** A shared feed (coordination: redis) numbers every replica's events; a process on its own keeps a ring. */
function eventsFeed(deps: RestRoutesDeps, capacity: number): { feed: EventFeed; close(): void } {
  if (deps.eventFeed !== undefined) return { feed: deps.eventFeed, close: () => {} };
  const now = deps.now ?? Date.now;
  const ring = createEventRing({ events: deps.events, capacity, firstId: Math.floor(now()) * 1000 });
  return { feed: ring, close: () => ring.close() };
}

export async function registerRestRoutes(app: FastifyInstance, deps: RestRoutesDeps): Promise<void> {
  const ctx: RestContext = {
    ...deps,
    shutdownSignal: deps.shutdownSignal ?? new AbortController().signal,
    keepAliveMs: deps.keepAliveMs ?? SSE_KEEP_ALIVE_MS,
    retryMs: deps.retryMs ?? SSE_RETRY_MS,
    openStreams: deps.openStreams ?? new Set(),
    replayCapacity: deps.replayEvents ?? DEFAULT_REPLAY_EVENTS,
  };
  const events = eventsFeed(deps, ctx.replayCapacity);
  await app.register(
    async function restPlugin(scope) {
      endStreamsOnClose(scope, ctx.openStreams);
      scope.addHook('onClose', async function stopNumberingEvents() {
        events.close();
      });
      registerAgentsRoute(scope, ctx);
      registerChannelsRoute(scope, ctx);
      registerActivityRoute(scope, ctx);
      registerChatRoutes(scope, ctx);
      registerEventsRoute(scope, ctx, events.feed);
    },
    { prefix: '/api' },
  );
}
