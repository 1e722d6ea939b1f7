// Whether a job's owner may fire now: each fire counts against the owner token's gateway.rateLimit, as a request does.
import type { RateCounter } from '../coordination/types.js';
import type { Logger } from 'pino';

export interface RateLimitPolicy {
  maxRequests: number;
  windowMs: number;
}

export type Admission = { admitted: true } | { admitted: false; summary: string; retryAfterMs: number };

export interface FireAdmission {
  /** Counts one request of the owner's window; over the limit, the fire is refused until the window closes. */
  admit(ownerId: string): Promise<Admission>;
}

export interface FireAdmissionDeps {
  /** The counter the HTTP limiter counts in (coordination.rateCounter). */
  counter: RateCounter;
  /** gateway.rateLimit. */
  limit: () => RateLimitPolicy;
  log: Logger;
}

/** The HTTP limiter's key of a token (server/http-server.ts), so its requests and its jobs' fires share one window. */
export const ownerRateKey = (ownerId: string): string => `token:${ownerId}`;

export function createFireAdmission({ counter, limit, log }: FireAdmissionDeps): FireAdmission {
  return {
    async admit(ownerId) {
      const { maxRequests, windowMs } = limit();
      let count: number;
      let ttlMs: number;
      try {
        ({ count, ttlMs } = await counter.hit(ownerRateKey(ownerId), windowMs));
      } catch (error) {
        // As the HTTP limiter does (skipOnError): an unreachable shared counter lets the request through.
        log.warn({ err: error, ownerId }, 'rate-limit counter unavailable; scheduled fire let through');
        return { admitted: true };
      }
      if (count <= maxRequests) return { admitted: true };
      return {
        admitted: false,
        retryAfterMs: ttlMs,
        summary: `rate-limit: skipped, the owner token is over gateway.rateLimit (${maxRequests} requests per ${windowMs} ms); its window reopens in ${ttlMs} ms`,
      };
    },
  };
}
