// The recent map learning keeps its turns in: the newest entries answer, the oldest are forgotten past its size.
import { describe, expect, it } from 'vitest';
import { createRecentMap } from '../src/recent-map.js';

describe('recent map', () => {
  it('answers the newest entries, forgets the oldest past its size, and deletes from either generation', () => {
    const map = createRecentMap<number, string>(10);
    for (let key = 0; key < 30; key += 1) map.set(key, `v${key}`);
    const kept = Array.from({ length: 30 }, (_, key) => map.get(key) !== undefined);
    expect(kept.slice(0, 20).some(Boolean)).toBe(false);
    expect(kept.slice(25)).toEqual([true, true, true, true, true]);
    expect(kept.filter(Boolean).length).toBeLessThanOrEqual(10);
    map.set(26, 'again');
    expect(map.get(26)).toBe('again');
    map.delete(26);
    map.delete(29);
    expect([map.get(26), map.get(29), map.get(28)]).toEqual([undefined, undefined, 'v28']);
  });
});
