// The webhook replay cache: a signature is a duplicate for exactly 10 minutes, and the cache never grows past its bound.
import { describe, expect, it } from 'vitest';
import { createReplayCache, REPLAY_WINDOW_MS } from '../../src/http/webhook-replay.js';

describe('webhook replay cache', () => {
  it('remembers a signature for the 10-minute window and forgets it after', () => {
    let now = 1_000_000;
    const cache = createReplayCache({ now: () => now });
    expect(REPLAY_WINDOW_MS).toBe(600_000);
    expect(cache.has('sig-a')).toBe(false);
    cache.remember('sig-a');
    now += REPLAY_WINDOW_MS - 1;
    expect(cache.has('sig-a')).toBe(true);
    now += 1;
    expect(cache.has('sig-a')).toBe(false);
    cache.remember('sig-b');
    // Expired entries are dropped as later deliveries are remembered.
    expect(cache.size).toBe(1);
  });

  it('holds at most maxEntries signatures, forgetting the oldest first', () => {
    let now = 0;
    const cache = createReplayCache({ now: () => now, maxEntries: 3 });
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      cache.remember(key);
      now += 1;
    }
    expect(cache.size).toBe(3);
    expect(['a', 'b', 'c', 'd', 'e'].map((key) => cache.has(key))).toEqual([false, false, true, true, true]);
  });
});
