// Budget windows: a UTC day and a UTC month from their first millisecond (whatever the local zone), and a rolling one.
import { describe, expect, it } from 'vitest';
import { bucketAt, bucketsAt, windowAt } from '../../src/budgets/windows.js';

describe('budget windows', () => {
  it('a day runs from 00:00 UTC to the next, across a month end', () => {
    const lastMinute = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
    expect(windowAt('day', lastMinute)).toEqual({ start: Date.UTC(2026, 10, 30), end: Date.UTC(2026, 11, 1) });
    expect(windowAt('day', lastMinute + 1)).toEqual({ start: Date.UTC(2026, 11, 1), end: Date.UTC(2026, 11, 2) });
  });

  it('a month runs from its first day to the next month’s, across a year end and a leap February', () => {
    expect(windowAt('month', Date.UTC(2026, 11, 31, 12))).toEqual({
      start: Date.UTC(2026, 11, 1),
      end: Date.UTC(2027, 0, 1),
    });
    expect(windowAt('month', Date.UTC(2028, 1, 29, 23))).toEqual({
      start: Date.UTC(2028, 1, 1),
      end: Date.UTC(2028, 2, 1),
    });
  });

  it('a rolling window counts the last rollingMs', () => {
    const now = Date.UTC(2026, 10, 28, 19);
    expect(windowAt({ rollingMs: 3_600_000 }, now)).toEqual({ start: now - 3_600_000, end: now + 3_600_000 });
  });
});

describe('budget buckets', () => {
  it('a day or month is one bucket, its start', () => {
    const at = Date.UTC(2026, 10, 28, 23, 59);
    expect(bucketsAt('day', at)).toEqual([Date.UTC(2026, 10, 28)]);
    expect(bucketAt('month', at)).toBe(Date.UTC(2026, 10, 1));
  });

  it('a rolling hour counts whole-minute buckets covering at least the last hour', () => {
    const now = Date.UTC(2026, 10, 28, 19, 30, 20);
    const buckets = bucketsAt({ rollingMs: 3_600_000 }, now);
    expect(buckets[0]).toBe(Date.UTC(2026, 10, 28, 18, 30));
    expect(buckets.at(-1)).toBe(Date.UTC(2026, 10, 28, 19, 30));
    expect(buckets).toHaveLength(61);
    expect(bucketAt({ rollingMs: 3_600_000 }, now)).toBe(Date.UTC(2026, 10, 28, 19, 30));
  });

  it('a rolling month stays within about sixty buckets', () => {
    const now = Date.UTC(2026, 10, 28, 19);
    expect(bucketsAt({ rollingMs: 30 * 86_400_000 }, now).length).toBeLessThanOrEqual(61);
  });
});
