// A budget's window at a moment: a UTC day or month from its first millisecond, or the last `rollingMs`.
import type { BudgetConfig } from '../config/index.js';

export interface BudgetWindow {
  /** First millisecond counted (epoch ms). */
  start: number;
  /** When the window has moved past everything counted now: a refusal's Retry-After counts to it. */
  end: number;
}

export function windowAt(window: BudgetConfig['window'], now: number): BudgetWindow {
  const date = new Date(now);
  if (window === 'day') {
    const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
    return { start, end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1) };
  }
  if (window === 'month') {
    const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    return { start, end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) };
  }
  return { start: now - window.rollingMs, end: now + window.rollingMs };
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * How far back a bucket can still count: a month is at most 31 days, a rolling window at most ~24.9 days (the longest
 * timer), each plus one bucket. Durable and Redis usage older than this is dropped.
 */
export const USAGE_KEPT_MS = 32 * DAY_MS;
/** A rolling window is cut into at most this many buckets, so a rolling sum reads a bounded number of counters. */
const ROLLING_BUCKETS = 60;

function rollingBucketMs(rollingMs: number): number {
  return Math.max(MINUTE_MS, Math.ceil(rollingMs / ROLLING_BUCKETS / MINUTE_MS) * MINUTE_MS);
}

/** The bucket a use at `at` is counted in: the window's start for a day or month, a whole-minute slot when rolling. */
export function bucketAt(window: BudgetConfig['window'], at: number): number {
  if (typeof window === 'string') return windowAt(window, at).start;
  const size = rollingBucketMs(window.rollingMs);
  return Math.floor(at / size) * size;
}

/**
 * The buckets a window counts at `now`, oldest first. A rolling window keeps the bucket its start falls in whole, so
 * it may count up to one bucket more than `rollingMs`, never less: a limit is never overrun by the cut.
 */
export function bucketsAt(window: BudgetConfig['window'], now: number): number[] {
  if (typeof window === 'string') return [windowAt(window, now).start];
  const size = rollingBucketMs(window.rollingMs);
  const buckets: number[] = [];
  for (let bucket = bucketAt(window, now - window.rollingMs); bucket <= now; bucket += size) buckets.push(bucket);
  return buckets;
}

/** When a bucket stops counting in every window of this kind: the day's or month's end, or a rolling window past it. */
export function bucketCountedUntil(window: BudgetConfig['window'], bucket: number): number {
  if (typeof window === 'string') return windowAt(window, bucket).end;
  return bucket + rollingBucketMs(window.rollingMs) + window.rollingMs;
}
