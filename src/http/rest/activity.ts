// GET /api/activity: the newest event-bus events the caller may see (event-audience.ts), newest first (spec
// "Limits": limit 1-100, default 50).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { grantsRest } from '../../server/index.js';
import { sessionCallerOf } from '../../sessions/index.js';
import { createEventAudience } from './event-audience.js';
import type { RestContext } from './types.js';
import { parseInput } from './validation.js';

export const DEFAULT_ACTIVITY_LIMIT = 50;
export const MAX_ACTIVITY_LIMIT = 100;
/** Recent bus events filtered for a caller without admin (the bus keeps 500), so its page may hold fewer than `limit`. */
export const ACTIVITY_SCAN_EVENTS = 500;

const activityQuery = z.strictObject({
  limit: z.coerce
    .number()
    .int('must be an integer')
    .min(1, 'must be between 1 and 100')
    .max(MAX_ACTIVITY_LIMIT, 'must be between 1 and 100')
    .default(DEFAULT_ACTIVITY_LIMIT),
});

export function registerActivityRoute(scope: FastifyInstance, ctx: RestContext): void {
  scope.get('/activity', { onRequest: ctx.auth.require({ grants: grantsRest }) }, async function activity(request) {
    const { limit } = parseInput(activityQuery, request.query);
    const caller = sessionCallerOf(ctx.auth.callerOf(request));
    const audience = createEventAudience(caller, async (sessionKey) => (await ctx.sessions.get(sessionKey))?.ownerId);
    const shown = [];
    // Oldest first, as the events happened: a session:created that resets an owner comes before its session's events.
    const scanned = ctx.events.recent(caller.isAdmin ? limit : ACTIVITY_SCAN_EVENTS);
    for (const event of scanned)
      if (await audience.sees(event)) shown.push({ name: event.name, ts: event.ts, payload: event.payload });
    return { events: shown.slice(-limit).reverse() };
  });
}
