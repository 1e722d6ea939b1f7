// The in-memory denial cache and the per-tree denial counter: expiry, per-session clearing and their size bounds.
import { describe, expect, it } from 'vitest';
import { createDenialCounter } from '../../src/approvals/denial-breaker.js';
import { createDenialCache } from '../../src/approvals/denial-cache.js';

describe('denial cache', () => {
  it('answers a denial until it expires, per session, tool and digest', () => {
    const cache = createDenialCache();
    cache.remember('s1', 'shell', 'd1', 'denied by admin', 1_000);
    expect(cache.find('s1', 'shell', 'd1', 999)).toBe('denied by admin');
    expect(cache.find('s1', 'shell', 'd2', 999)).toBeUndefined();
    expect(cache.find('s1', 'other', 'd1', 999)).toBeUndefined();
    expect(cache.find('s2', 'shell', 'd1', 999)).toBeUndefined();
    expect(cache.find('s1', 'shell', 'd1', 1_000)).toBeUndefined();
  });

  it('clears one session or everything, and drops the oldest entries past its bound', () => {
    const cache = createDenialCache(2);
    cache.remember('s1', 'shell', 'a', 'no', 10);
    cache.remember('s2', 'shell', 'b', 'no', 10);
    cache.remember('s2', 'shell', 'c', 'no', 10);
    expect(cache.find('s1', 'shell', 'a', 0)).toBeUndefined();
    expect(cache.clearSession('s2')).toBe(2);
    expect(cache.find('s2', 'shell', 'b', 0)).toBeUndefined();
    cache.remember('s3', 'shell', 'd', 'no', 10);
    expect(cache.clear()).toBe(1);
    expect(cache.find('s3', 'shell', 'd', 0)).toBeUndefined();
  });
});

describe('denial counter', () => {
  it('reports the count when a tree reaches the threshold, then starts over; an allowed call resets it', () => {
    const counter = createDenialCounter();
    expect(counter.denied('t1', 3)).toBeUndefined();
    expect(counter.denied('t1', 3)).toBeUndefined();
    expect(counter.denied('t2', 3)).toBeUndefined();
    expect(counter.denied('t1', 3)).toBe(3);
    expect(counter.denied('t1', 3)).toBeUndefined();
    counter.allowed('t2');
    expect(counter.denied('t2', 2)).toBeUndefined();
    expect(counter.denied('t2', 2)).toBe(2);
  });

  it('forgets the least recently denied trees past its bound', () => {
    const counter = createDenialCounter(1);
    expect(counter.denied('old', 2)).toBeUndefined();
    expect(counter.denied('new', 2)).toBeUndefined();
    expect(counter.denied('old', 2)).toBeUndefined();
    expect(counter.denied('old', 2)).toBe(2);
  });
});
