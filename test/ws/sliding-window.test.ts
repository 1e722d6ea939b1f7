// The per-connection sliding-window limiter: at most maxEvents in any windowMs, refused events not counted.
import { describe, expect, it } from 'vitest';
import { createSlidingWindowLimiter } from '../../src/ws/index.js';

describe('sliding window limiter', () => {
  it('accepts maxEvents in a window and refuses the next one', () => {
    const limiter = createSlidingWindowLimiter({ maxEvents: 3, windowMs: 1_000 });
    expect([0, 1, 2, 3].map((t) => limiter.tryAcquire(t))).toEqual([true, true, true, false]);
  });

  it('accepts again once the oldest accepted event leaves the window', () => {
    const limiter = createSlidingWindowLimiter({ maxEvents: 2, windowMs: 1_000 });
    expect(limiter.tryAcquire(0)).toBe(true);
    expect(limiter.tryAcquire(500)).toBe(true);
    expect(limiter.tryAcquire(999)).toBe(false);
    expect(limiter.tryAcquire(1_000)).toBe(true);
    expect(limiter.tryAcquire(1_200)).toBe(false);
    expect(limiter.tryAcquire(1_500)).toBe(true);
  });

  it('does not count refused events against later ones', () => {
    const limiter = createSlidingWindowLimiter({ maxEvents: 1, windowMs: 100 });
    expect(limiter.tryAcquire(0)).toBe(true);
    for (let t = 1; t < 100; t += 1) expect(limiter.tryAcquire(t)).toBe(false);
    expect(limiter.tryAcquire(100)).toBe(true);
  });

  it('slides rather than resetting at fixed boundaries', () => {
    const limiter = createSlidingWindowLimiter({ maxEvents: 2, windowMs: 1_000 });
    expect(limiter.tryAcquire(900)).toBe(true);
    expect(limiter.tryAcquire(950)).toBe(true);
    // A fixed window starting at 1000 would accept here; the sliding one still sees two events in (100, 1100].
    expect(limiter.tryAcquire(1_100)).toBe(false);
    expect(limiter.tryAcquire(1_900)).toBe(true);
  });

  it('keeps the exact limit past its initial capacity, across wrap-around and growth', () => {
    const limiter = createSlidingWindowLimiter({ maxEvents: 100, windowMs: 1_000 });
    let accepted = 0;
    for (let t = 0; t < 1_000; t += 5) if (limiter.tryAcquire(t)) accepted += 1;
    expect(accepted).toBe(100);
    // The first 100 events (t = 0..495) leave the window one by one from t = 1000 on.
    expect(limiter.tryAcquire(1_000)).toBe(true);
    expect(limiter.tryAcquire(1_001)).toBe(false);
    expect(limiter.tryAcquire(1_005)).toBe(true);
  });
});
