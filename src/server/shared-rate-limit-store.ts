// Plugs a shared RateCounter (coordination: redis) into @fastify/rate-limit, so every replica counts in one window;
// while that counter cannot be reached, this process counts on its own with the same limits.
import type { RateCounter, WindowCount } from '../coordination/types.js';
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Logger } from 'pino';
import { createLocalRateCounter } from '../coordination/index.js';
import { SERVER_LIMITS } from './limits.js';

type IncrCallback = Parameters<FastifyRateLimitStore['incr']>[1];

export interface SharedRateLimitStoreDeps {
  counter: RateCounter;
  log: Logger;
  now: () => number;
}

/**
 * A store class for the plugin's `store` option (the plugin constructs it). A route with its own limit gets a
 * child whose keys carry the route, as the plugin's own stores do, so its count is apart from the global one.
 *
 * When the shared counter fails (Redis down or reconnecting), the hit is counted in a local window instead: the
 * limit holds per replica rather than failing open (which let every request through) or closed (which would
 * refuse every client for the length of an outage). One warning per outage, one line when Redis counts again.
 */
export function sharedRateLimitStore({ counter, log, now }: SharedRateLimitStoreDeps): FastifyRateLimitStoreCtor {
  const local = createLocalRateCounter(now, SERVER_LIMITS.localRateLimitKeys);
  let isLocal = false;

  async function hit(key: string, windowMs: number): Promise<WindowCount> {
    try {
      const counted = await counter.hit(key, windowMs);
      if (isLocal) log.info('shared rate-limit counter reachable again; counting in Redis');
      isLocal = false;
      return counted;
    } catch (error) {
      if (!isLocal)
        log.warn(
          { err: error },
          'shared rate-limit counter unavailable; counting gateway.rateLimit in this process until it is back',
        );
      isLocal = true;
      return local.hit(key, windowMs);
    }
  }

  return class SharedRateLimitStore implements FastifyRateLimitStore {
    readonly #prefix: string;
    constructor(_options: FastifyRateLimitOptions, prefix = '') {
      this.#prefix = prefix;
    }
    incr(key: string, callback: IncrCallback, timeWindow: number): void {
      hit(`${this.#prefix}${key}`, timeWindow).then(
        ({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }
    child(routeOptions: { method: string | string[]; url: string }): FastifyRateLimitStore {
      return new SharedRateLimitStore({}, `${this.#prefix}${String(routeOptions.method)}${routeOptions.url}-`);
    }
  };
}
