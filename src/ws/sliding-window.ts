// A sliding-window log limiter: at most `maxEvents` accepted in any `windowMs`, O(1) per check.

export interface SlidingWindowLimiter {
  /** Records an event at `nowMs` and says whether it is within the limit; refused events are not recorded. */
  tryAcquire(nowMs: number): boolean;
}

export function createSlidingWindowLimiter({ maxEvents, windowMs }: { maxEvents: number; windowMs: number }): SlidingWindowLimiter {
  // Timestamps of the last `maxEvents` accepted events; `oldest` indexes the earliest of them.
  const accepted = new Float64Array(maxEvents);
  let count = 0;
  let oldest = 0;
  return {
    tryAcquire(nowMs) {
      if (count < maxEvents) {
        accepted[(oldest + count) % maxEvents] = nowMs;
        count += 1;
        return true;
      }
      if (nowMs - (accepted[oldest] ?? 0) < windowMs) return false;
      accepted[oldest] = nowMs;
      oldest = (oldest + 1) % maxEvents;
      return true;
    },
  };
}
