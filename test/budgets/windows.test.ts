// Budget windows: a UTC day and a UTC month from their first millisecond (whatever the local zone), and a rolling one.
import { describe, expect, it } from 'vitest';
import { windowAt } from '../../src/budgets/windows.js';

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
