// GET /api/events: the event-bus events the caller may see (event-audience.ts) as SSE frames named after them and
// numbered, with a retry hint, keep-alive pings, and the missed ones replayed first to a client reconnecting with
// Last-Event-ID.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { grantsRest } from '../../server/index.js';
import { createAsyncQueue, openSseStream, pipeToSse, type SseFrame } from '../../server/index.js';
import type { EventFeed, FeedEntry } from '../../coordination/index.js';
import { sessionCallerOf } from '../../sessions/index.js';
import { createEventAudience, type EventAudience } from './event-audience.js';
import type { RestContext } from './types.js';
import { parseInput } from './validation.js';

/**
 * Live events waiting for one slow client, beyond the replayed ones; past this the oldest are dropped, so a
 * stalled client cannot grow memory.
 */
export const MAX_QUEUED_EVENTS = 1000;

const eventsQuery = z.strictObject({
  token: z.string().optional(),
  // For clients that cannot set the Last-Event-ID header on their first request; the header wins when both are sent.
  lastEventId: z.string().max(64).optional(),
});

/** `id: <feed id>`, `event: <name>` and `data: {...payload, ts}` (ts in epoch ms). */
export function busEventFrame({ id, event }: FeedEntry): SseFrame {
  return { id, event: event.name, data: JSON.stringify({ ...event.payload, ts: event.ts }) };
}

/** The entries of `source` the audience may see, in order; the ids of the others are skipped. */
async function* visibleTo(audience: EventAudience, source: AsyncIterable<FeedEntry>): AsyncGenerator<FeedEntry> {
  for await (const entry of source) if (await audience.sees(entry.event)) yield entry;
}

export function registerEventsRoute(scope: FastifyInstance, ctx: RestContext, feed: EventFeed): void {
  const requireRestSse = ctx.auth.require({ grants: grantsRest, allowQueryToken: true });

  scope.get('/events', { onRequest: requireRestSse }, async function systemEvents(request, reply) {
    const query = parseInput(eventsQuery, request.query);
    const header = request.headers['last-event-id'];
    const lastEventId = typeof header === 'string' ? header : query.lastEventId;
    const caller = sessionCallerOf(ctx.auth.callerOf(request));
    const audience = createEventAudience(caller, async (sessionKey) => (await ctx.sessions.get(sessionKey))?.ownerId);
    const ended = new AbortController();
    const queue = createAsyncQueue<FeedEntry>({
      signal: AbortSignal.any([ended.signal, ctx.shutdownSignal]),
      maxItems: MAX_QUEUED_EVENTS + ctx.replayCapacity,
    });
    // The feed sends the missed events first, then live ones, each once. Followed before the stream opens, so a
    // feed that cannot be read (a shared one whose Redis is down) answers an HTTP error rather than a cut stream.
    const unsubscribe = await feed.follow(lastEventId, (entry) => queue.push(entry));
    const stream = openSseStream(reply, ctx.openStreams);
    stream.signal.addEventListener('abort', () => ended.abort(), { once: true });
    try {
      await stream.write({ retryMs: ctx.retryMs });
      // An admin sees every event; another caller's replay and live events pass the same filter.
      await pipeToSse(stream, caller.isAdmin ? queue : visibleTo(audience, queue), busEventFrame, {
        keepAliveMs: ctx.keepAliveMs,
      });
    } finally {
      unsubscribe();
      ended.abort();
      stream.close();
      if (queue.dropped() > 0)
        ctx.log.warn({ dropped: queue.dropped() }, 'slow /api/events client: oldest events dropped');
    }
    return reply;
  });
}
