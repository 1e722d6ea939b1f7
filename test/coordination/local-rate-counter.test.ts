// The in-process fallback of the shared HTTP rate counter: the same fixed windows, and a bounded number of keys.
import { describe, expect, it } from 'vitest';
import { createLocalRateCounter } from '../../src/coordination/index.js';

describe('local rate counter', () => {
  it('counts hits in a window opened by the first one, and starts again once it ends', async () => {
    let now = 1_000;
    const counter = createLocalRateCounter({ now: () => now, maxKeys: 100 });
    expect(await counter.hit('token:a', 500)).toEqual({ count: 1, ttlMs: 500 });
    now += 200;
    expect(await counter.hit('token:a', 500)).toEqual({ count: 2, ttlMs: 300 });
    expect(await counter.hit('token:b', 500)).toEqual({ count: 1, ttlMs: 500 });
    now += 300;
    expect(await counter.hit('token:a', 500)).toEqual({ count: 1, ttlMs: 500 });
  });

  it('keeps at most maxKeys windows, forgetting the one that ends soonest', async () => {
    let now = 0;
    const counter = createLocalRateCounter({ now: () => now, maxKeys: 2 });
    await counter.hit('first', 1_000);
    now += 10;
    await counter.hit('second', 1_000);
    await counter.hit('second', 1_000);
    await counter.hit('third', 1_000);
    // `first` made room for `third`; `second` is still counted.
    expect((await counter.hit('second', 1_000)).count).toBe(3);
    expect((await counter.hit('first', 1_000)).count).toBe(1);
  });
});
