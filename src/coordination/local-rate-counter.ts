// Fixed-window request counters kept in this process: the HTTP rate limit's fallback while Redis is unreachable.
import type { RateCounter } from './rate-counter.js';

export interface LocalRateCounterOptions {
  now: () => number;
  /** Clients counted at once; beyond it the window that ends soonest is forgotten first. */
  maxKeys: number;
}

interface Window {
  count: number;
  endsAt: number;
}

/**
 * The same windows as the shared counter (opened by a key's first hit, lasting `windowMs`, refused hits counted),
 * so a replica cut off from Redis still lets each client through at most maxRequests times per window.
 */
export function createLocalRateCounter({ now, maxKeys }: LocalRateCounterOptions): RateCounter {
  // Insertion order is about window order: a window is re-inserted when it opens (route limits may differ in length).
  const windows = new Map<string, Window>();

  function forgetEnded(at: number): void {
    for (const [key, window] of windows) {
      if (window.endsAt > at && windows.size < maxKeys) return;
      windows.delete(key);
    }
  }

  return {
    async hit(key, windowMs) {
      const at = now();
      let window = windows.get(key);
      if (window === undefined || window.endsAt <= at) {
        windows.delete(key);
        forgetEnded(at);
        window = { count: 0, endsAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, ttlMs: window.endsAt - at };
    },
  };
}
