// Plugs a shared RateCounter (coordination: redis) into @fastify/rate-limit, so every replica counts in one window.
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Logger } from 'pino';
import type { RateCounter } from '../coordination/index.js';

type IncrCallback = Parameters<FastifyRateLimitStore['incr']>[1];

/**
 * A store class for the plugin's `store` option (the plugin constructs it). A route with its own limit gets a
 * child whose keys carry the route, as the plugin's own stores do, so its count is apart from the global one.
 * A counter failure is passed to the plugin, which lets the request through (skipOnError) and is logged here.
 */
export function sharedRateLimitStore(counter: RateCounter, log: Logger): FastifyRateLimitStoreCtor {
  return class SharedRateLimitStore implements FastifyRateLimitStore {
    readonly #prefix: string;
    constructor(_options: FastifyRateLimitOptions, prefix = '') {
      this.#prefix = prefix;
    }
    incr(key: string, callback: IncrCallback, timeWindow: number): void {
      counter.hit(`${this.#prefix}${key}`, timeWindow).then(
        ({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }),
        (error: unknown) => {
          log.warn({ err: error }, 'shared rate-limit counter unavailable; request let through');
          callback(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }
    child(routeOptions: { method: string | string[]; url: string }): FastifyRateLimitStore {
      return new SharedRateLimitStore({}, `${this.#prefix}${String(routeOptions.method)}${routeOptions.url}-`);
    }
  };
}
