// The in-process rate-limit counter (coordination: local): the same fixed windows as the Redis one, in bounded memory.
import { describe, expect, it } from 'vitest';
import { createLocalRateCounter } from '../../src/coordination/index.js';

describe('local rate counter', () => {
  it('opens a window at the first hit, keeps its end for later hits, and starts again once it closes', async () => {
    let now = 1_000;
    const counter = createLocalRateCounter(() => now);
    expect(await counter.hit('token:bob', 300)).toEqual({ count: 1, ttlMs: 300 });
    now += 100;
    expect(await counter.hit('token:bob', 300)).toEqual({ count: 2, ttlMs: 200 });
    expect(await counter.hit('ip:10.0.0.1', 300)).toEqual({ count: 1, ttlMs: 300 });
    now += 200;
    expect(await counter.hit('token:bob', 300)).toEqual({ count: 1, ttlMs: 300 });
  });

  it('holds at most maxKeys windows, dropping closed ones first, then the oldest', async () => {
    let now = 0;
    const counter = createLocalRateCounter(() => now, 2);
    await counter.hit('a', 10);
    await counter.hit('b', 1_000);
    now = 20;
    await counter.hit('c', 1_000);
    // 'a' had closed and went first; 'b' is still counted.
    expect((await counter.hit('b', 1_000)).count).toBe(2);
    await counter.hit('d', 1_000);
    // Both open: the oldest ('b') made room.
    expect((await counter.hit('b', 1_000)).count).toBe(1);
  });
});
