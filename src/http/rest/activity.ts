// GET /api/activity: the newest event-bus events, newest first (spec "Limits": limit 1-100, default 50).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { grantsRest } from '../../server/index.js';
import type { RestContext } from './types.js';
import { parseInput } from './validation.js';

export const DEFAULT_ACTIVITY_LIMIT = 50;
export const MAX_ACTIVITY_LIMIT = 100;

const activityQuery = z.strictObject({
  limit: z.coerce.number().int('must be an integer').min(1, 'must be between 1 and 100').max(MAX_ACTIVITY_LIMIT, 'must be between 1 and 100').default(DEFAULT_ACTIVITY_LIMIT),
});

export function registerActivityRoute(scope: FastifyInstance, ctx: RestContext): void {
  scope.get('/activity', { onRequest: ctx.auth.require({ grants: grantsRest }) }, async function activity(request) {
    const { limit } = parseInput(activityQuery, request.query);
    const events = ctx.events.recent(limit).reverse().map((event) => ({ name: event.name, ts: event.ts, payload: event.payload }));
    return { events };
  });
}
