// Spend over a window that starts at the top of the hour 23 hours ago (24h) or at midnight UTC 6 or 29 days ago, and
// a series whose last bucket holds now; usage24h over the same 24 hours.
import { afterEach, describe, expect, it } from 'vitest';
import type { UsageRecord } from '../../src/obs/recorder.js';
import { startObs, type ObsStack } from './support.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2026-01-15 at 12:30 UTC. */
const NOW = Date.UTC(2026, 0, 15, 12, 30);

describe('obs billing spend', () => {
  let stack: ObsStack | undefined;
  afterEach(() => stack?.close());

  const usage = (overrides: Partial<UsageRecord>): UsageRecord => ({
    ts: NOW,
    agentId: 'default',
    sessionKey: 'default:alice:ws',
    provider: 'local',
    model: 'm',
    inputTokens: 100,
    outputTokens: 50,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0.01,
    ...overrides,
  });

  it('usage24h counts from the top of the hour 23 hours ago: the same clock hour yesterday is not the current one', async () => {
    stack = startObs(':memory:', { startAt: NOW });
    stack.recorder.usage(usage({ ts: NOW - 24 * HOUR + 10 * 60_000 }));
    stack.recorder.usage(usage({ ts: NOW - 23 * HOUR - 30 * 60_000, inputTokens: 1, outputTokens: 0 }));
    stack.recorder.usage(usage({ ts: NOW, inputTokens: 7, outputTokens: 0 }));
    const hours = await stack.obs.billing.usage24h();
    expect(hours[12]).toEqual({ hour: 12, tokens: 7 });
    expect(hours[13]).toEqual({ hour: 13, tokens: 1 });
    expect(hours.reduce((sum, entry) => sum + entry.tokens, 0)).toBe(8);
  });

  it('24h: hourly buckets from the top of the hour 23 hours ago to now, rows per agent costliest first', async () => {
    stack = startObs(':memory:', { startAt: NOW });
    const firstHour = Date.UTC(2026, 0, 14, 13);
    stack.recorder.usage(usage({ ts: firstHour - 1, agentId: 'early', costUsd: 5 }));
    stack.recorder.usage(usage({ ts: firstHour, agentId: 'cheap', costUsd: 0.25 }));
    stack.recorder.usage(usage({ ts: NOW, agentId: 'dear', costUsd: 1.5, provider: 'cloud', model: 'x' }));
    const report = await stack.obs.billing.spend({ window: '24h', by: 'agent' });
    expect(report).toMatchObject({ window: '24h', by: 'agent', sinceMs: firstHour, untilMs: NOW, bucketMs: HOUR });
    expect(report.rows).toEqual([
      { key: 'dear', costUsd: 1.5, inputTokens: 100, outputTokens: 50, calls: 1 },
      { key: 'cheap', costUsd: 0.25, inputTokens: 100, outputTokens: 50, calls: 1 },
    ]);
    expect(report.totals).toEqual({ costUsd: 1.75, inputTokens: 200, outputTokens: 100, calls: 2 });
    expect(report.series).toHaveLength(24);
    expect(report.series[0]).toEqual({ startMs: firstHour, costUsd: 0.25, tokens: 150, calls: 1 });
    expect(report.series[23]).toEqual({ startMs: Date.UTC(2026, 0, 15, 12), costUsd: 1.5, tokens: 150, calls: 1 });
    expect(report.series.slice(1, 23).every((point) => point.calls === 0)).toBe(true);
    expect((await stack.obs.billing.spend({ window: '24h', by: 'model' })).rows.map((row) => row.key)).toEqual([
      'cloud/x',
      'local/m',
    ]);
  });

  it('7d and 30d: UTC-daily buckets, today last', async () => {
    stack = startObs(':memory:', { startAt: NOW });
    const today = Date.UTC(2026, 0, 15);
    stack.recorder.usage(usage({ ts: today - 6 * DAY - 1, costUsd: 9 }));
    stack.recorder.usage(usage({ ts: today - 6 * DAY, costUsd: 2 }));
    stack.recorder.usage(usage({ ts: today + HOUR, costUsd: 3 }));
    const week = await stack.obs.billing.spend({ window: '7d', by: 'agent' });
    expect(week).toMatchObject({ sinceMs: today - 6 * DAY, bucketMs: DAY, totals: { costUsd: 5, calls: 2 } });
    expect(week.series.map((point) => point.costUsd)).toEqual([2, 0, 0, 0, 0, 0, 3]);
    expect(week.series[6]?.startMs).toBe(today);
    const month = await stack.obs.billing.spend({ window: '30d', by: 'token' });
    expect(month).toMatchObject({ sinceMs: today - 29 * DAY, totals: { costUsd: 14, calls: 3 } });
    expect(month.series).toHaveLength(30);
    expect(month.rows).toEqual([{ key: null, costUsd: 14, inputTokens: 300, outputTokens: 150, calls: 3 }]);
  });
});
