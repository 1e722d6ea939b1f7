// How long /v1 responses are kept (responses.ttlDays): who may use a stored response, and the sweep that purges old ones.
import type { SessionCaller } from '../../agents/types.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { responseForbidden, responseNotFound } from '../../errors.js';
import { createPeriodicTask } from '../../periodic-task.js';
import type { ResponseRecord } from '../../store/index.js';
import type { OpenAiContext } from './types.js';

const DAY_MS = 86_400_000;

/** `responses.ttlDays` when the deps give no reader (the config schema's default). */
export const DEFAULT_RESPONSE_TTL_DAYS = 30;
/** How often expired responses are purged. Expired ones answer 404 at once; the sweep only reclaims their rows. */
export const RESPONSE_SWEEP_INTERVAL_MS = 3_600_000;
/** Rows one purge statement deletes; the sweep yields to requests between batches. */
export const RESPONSE_PURGE_BATCH_ROWS = 500;
/** Batches in one sweep at most, so a large backlog is worked off over several sweeps. */
export const RESPONSE_PURGE_MAX_BATCHES = 100;

/** Responses created before this instant (epoch ms) are expired. */
function expiryCutoff(ctx: OpenAiContext): number {
  return ctx.now() - (ctx.responseTtlDays?.() ?? DEFAULT_RESPONSE_TTL_DAYS) * DAY_MS;
}

/**
 * The stored response a caller may read, continue or delete. Unknown, deleted and expired ids are 404; another
 * token's response is 403 (DESIGN §3 "who may use a session", as previous_response_id has always answered).
 */
export function usableResponse<R extends ResponseRecord>(
  ctx: OpenAiContext,
  caller: SessionCaller,
  record: R | undefined,
  responseId: string,
  param: string | null,
): R {
  if (record === undefined || record.createdAt < expiryCutoff(ctx)) throw responseNotFound(responseId, param);
  if (record.clientId !== caller.clientId && !caller.isAdmin) throw responseForbidden(responseId, param);
  return record;
}

export interface ResponseSweep {
  start(): void;
  /** Clears the timer and waits for a sweep in progress, so no purge reaches a closed store. */
  stop(): Promise<void>;
}

/** Every `intervalMs`, deletes the expired responses in bounded batches, off the request path. */
export function createResponseSweep(ctx: OpenAiContext, intervalMs = RESPONSE_SWEEP_INTERVAL_MS): ResponseSweep {
  async function sweep(): Promise<void> {
    const cutoff = expiryCutoff(ctx);
    for (let batch = 0; batch < RESPONSE_PURGE_MAX_BATCHES && !task.isStopped(); batch += 1) {
      const purged = await ctx.responses.purgeCreatedBefore(cutoff, RESPONSE_PURGE_BATCH_ROWS);
      if (purged < RESPONSE_PURGE_BATCH_ROWS) return;
      await nextTurn();
    }
  }

  const task = createPeriodicTask({
    run: sweep,
    intervalMs: () => intervalMs,
    onTimedFailure: (error) => ctx.log.warn({ err: error }, 'purging expired responses failed; the next sweep retries'),
  });
  return { start: task.start, stop: task.stop };
}
