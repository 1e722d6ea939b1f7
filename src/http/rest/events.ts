// GET /api/events: every event-bus event as an SSE frame named after it, with a retry hint and keep-alive pings.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { BusEvent } from '../../obs/index.js';
import { grantsRest } from '../../server/index.js';
import { createAsyncQueue, openSseStream, pipeToSse, type SseFrame } from '../../server/index.js';
import type { RestContext } from './types.js';
import { parseInput } from './validation.js';

/** Events waiting for one slow client; beyond this the oldest are dropped, so a stalled client cannot grow memory. */
export const MAX_QUEUED_EVENTS = 1000;

const eventsQuery = z.strictObject({ token: z.string().optional() });

/** `event: <name>` and `data: {...payload, ts}` (ts in epoch ms). */
export function busEventFrame(event: BusEvent): SseFrame {
  return { event: event.name, data: JSON.stringify({ ...event.payload, ts: event.ts }) };
}

export function registerEventsRoute(scope: FastifyInstance, ctx: RestContext): void {
  const requireRestSse = ctx.auth.require({ grants: grantsRest, allowQueryToken: true });

  scope.get('/events', { onRequest: requireRestSse }, async function systemEvents(request, reply) {
    parseInput(eventsQuery, request.query);
    const stream = openSseStream(reply, ctx.openStreams);
    const queue = createAsyncQueue<BusEvent>({ signal: AbortSignal.any([stream.signal, ctx.shutdownSignal]), maxItems: MAX_QUEUED_EVENTS });
    const unsubscribe = ctx.events.subscribe((event) => queue.push(event));
    try {
      await stream.write({ retryMs: ctx.retryMs });
      await pipeToSse(stream, queue, busEventFrame, { keepAliveMs: ctx.keepAliveMs });
    } finally {
      unsubscribe();
      stream.close();
      if (queue.dropped() > 0) ctx.log.warn({ dropped: queue.dropped() }, 'slow /api/events client: oldest events dropped');
    }
    return reply;
  });
}
