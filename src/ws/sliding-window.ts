// A sliding-window log limiter: at most `maxEvents` accepted in any `windowMs`, amortised O(1) per check.

export interface SlidingWindowLimiter {
  /** Records an event at `nowMs` and says whether it is within the limit; refused events are not recorded. */
  tryAcquire(nowMs: number): boolean;
}

const INITIAL_CAPACITY = 16;

export function createSlidingWindowLimiter({
  maxEvents,
  windowMs,
}: {
  maxEvents: number;
  windowMs: number;
}): SlidingWindowLimiter {
  // Timestamps of the accepted events still inside the window, oldest at `head`, in a ring that grows on
  // demand (up to maxEvents), so a quiet connection costs a few bytes whatever the configured limit.
  let ring = new Float64Array(Math.min(maxEvents, INITIAL_CAPACITY));
  let head = 0;
  let size = 0;

  function grow(): void {
    const next = new Float64Array(Math.min(maxEvents, ring.length * 2));
    for (let index = 0; index < size; index += 1) next[index] = ring[(head + index) % ring.length] ?? 0;
    ring = next;
    head = 0;
  }

  return {
    tryAcquire(nowMs) {
      while (size > 0 && nowMs - (ring[head] ?? 0) >= windowMs) {
        head = (head + 1) % ring.length;
        size -= 1;
      }
      if (size >= maxEvents) return false;
      if (size === ring.length) grow();
      ring[(head + size) % ring.length] = nowMs;
      size += 1;
      return true;
    },
  };
}
