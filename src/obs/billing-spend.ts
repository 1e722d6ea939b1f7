// obs.billing.spend: recorded cost and tokens per agent, provider/model or owner token over the last 24 hours, 7 or 30
// days, with a time series whose last bucket is the current (partial) hour or day, so a chart ends at now.
import type { ObsPort, SpendKey } from '../store/index.js';
import { round } from './evidence/read.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export const SPEND_WINDOWS = ['24h', '7d', '30d'] as const;
export type SpendWindow = (typeof SPEND_WINDOWS)[number];
export const SPEND_KEYS = ['agent', 'model', 'token'] as const;

/** Each window as whole buckets: 24 hours, or 7 or 30 UTC days, the current one last. */
const BUCKETS: Record<SpendWindow, { bucketMs: number; count: number }> = {
  '24h': { bucketMs: HOUR_MS, count: 24 },
  '7d': { bucketMs: DAY_MS, count: 7 },
  '30d': { bucketMs: DAY_MS, count: 30 },
};

export interface SpendRow {
  /** The agent id, `provider/model`, or the owner token id; null for sessions without an owner (operator's). */
  key: string | null;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  calls: number;
}

export interface SpendPoint {
  /** The bucket's start, epoch ms (top of an hour, or midnight UTC). */
  startMs: number;
  costUsd: number;
  tokens: number;
  calls: number;
}

export interface SpendReport {
  window: SpendWindow;
  by: SpendKey;
  /** The window is [sinceMs, untilMs]: from the start of the first bucket to now. */
  sinceMs: number;
  untilMs: number;
  bucketMs: number;
  rows: SpendRow[];
  totals: Omit<SpendRow, 'key'>;
  /** Every bucket, oldest first, the one holding now last; buckets without calls are zeros. */
  series: SpendPoint[];
}

/** The start of the first of the window's buckets when it is `nowMs`. */
export function spendWindowStart(window: SpendWindow, nowMs: number): number {
  const { bucketMs, count } = BUCKETS[window];
  return nowMs - (nowMs % bucketMs) - (count - 1) * bucketMs;
}

export async function readSpend(
  port: Pick<ObsPort, 'spendGroups' | 'spendBuckets'>,
  { window, by, nowMs }: { window: SpendWindow; by: SpendKey; nowMs: number },
): Promise<SpendReport> {
  const { bucketMs, count } = BUCKETS[window];
  const sinceMs = spendWindowStart(window, nowMs);
  const range = { sinceMs, untilMs: nowMs };
  const [groups, buckets] = await Promise.all([
    port.spendGroups({ ...range, by }),
    port.spendBuckets({ ...range, bucketMs }),
  ]);
  const rows = groups.map((group) => ({
    key: group.key,
    costUsd: round(group.costUsd, 6),
    inputTokens: group.inputTokens,
    outputTokens: group.outputTokens,
    calls: group.calls,
  }));
  const totals = { costUsd: 0, inputTokens: 0, outputTokens: 0, calls: 0 };
  for (const row of groups) {
    totals.costUsd += row.costUsd;
    totals.inputTokens += row.inputTokens;
    totals.outputTokens += row.outputTokens;
    totals.calls += row.calls;
  }
  totals.costUsd = round(totals.costUsd, 6);
  const byBucket = new Map(buckets.map((bucket) => [bucket.bucket, bucket]));
  const series = Array.from({ length: count }, (_, index) => {
    const bucket = byBucket.get(index);
    return {
      startMs: sinceMs + index * bucketMs,
      costUsd: round(bucket?.costUsd ?? 0, 6),
      tokens: bucket?.tokens ?? 0,
      calls: bucket?.calls ?? 0,
    };
  });
  return { window, by, ...range, bucketMs, rows, totals, series };
}
