// Fixed-window request counters for the rate limit (gateway.rateLimit): the port every backend implements, and the in-process one.
import type { RateCounter } from './types.js';

/** Keys the in-process counter holds at most; past it, closed windows go first, then the oldest windows. */
export const LOCAL_RATE_COUNTER_MAX_KEYS = 10_000;

/**
 * The one-process counter (coordination: local): the same fixed windows in a Map. The HTTP limiter and the
 * scheduler's fires (scheduler/fire-admission.ts) count in it, so a token's scheduled turns share its HTTP limit.
 */
export function createLocalRateCounter(
  now: () => number = Date.now,
  maxKeys = LOCAL_RATE_COUNTER_MAX_KEYS,
): RateCounter {
  const windows = new Map<string, { count: number; endsAt: number }>();
  function makeRoom(at: number): void {
    for (const [key, window] of windows) if (window.endsAt <= at) windows.delete(key);
    for (const key of windows.keys()) {
      if (windows.size < maxKeys) break;
      windows.delete(key);
    }
  }
  return {
    async hit(key, windowMs) {
      const at = now();
      let window = windows.get(key);
      if (window === undefined || window.endsAt <= at) {
        if (window === undefined && windows.size >= maxKeys) makeRoom(at);
        windows.delete(key);
        window = { count: 0, endsAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, ttlMs: window.endsAt - at };
    },
  };
}
