// Billing and prompt-cache stats from token usage: buffered and stored calls counted once, filters, providers, hours.
import { afterEach, describe, expect, it } from 'vitest';
import type { UsageRecord } from '../../src/obs/recorder.js';
import { startObs, type ObsStack } from './support.js';

const HOUR = 3_600_000;

describe('obs billing', () => {
  let stack: ObsStack | undefined;
  afterEach(() => stack?.close());

  const usage = (overrides: Partial<UsageRecord>): UsageRecord => ({
    ts: Date.UTC(2026, 0, 15, 11),
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

  it('counts flushed history and the still-buffered current run exactly once', async () => {
    stack = startObs();
    const { recorder, obs } = stack;
    recorder.usage(usage({}));
    await recorder.flush();
    recorder.usage(usage({ costUsd: 0.02 }));
    expect(await obs.billing.total({})).toEqual({
      totalCost: 0.03,
      totalTokens: 300,
      callCount: 2,
      totalCacheSaved: 0,
    });
    expect(await obs.billing.total({})).toEqual({
      totalCost: 0.03,
      totalTokens: 300,
      callCount: 2,
      totalCacheSaved: 0,
    });
  });

  it('filters by agent, session and time; estimates cache savings from catalogue prices', async () => {
    stack = startObs();
    const { recorder, obs } = stack;
    recorder.usage(usage({ ts: 1_000, agentId: 'a', provider: 'cloud', cacheReadTokens: 1_000_000 }));
    recorder.usage(usage({ ts: 2_000, agentId: 'b', sessionKey: 'default:bob:ws' }));
    expect(await obs.billing.byAgent('a', {})).toEqual({
      totalCost: 0.01,
      totalTokens: 150,
      callCount: 1,
      totalCacheSaved: 2.7,
    });
    expect(await obs.billing.bySession('default:bob:ws', {})).toMatchObject({ callCount: 1, totalCacheSaved: 0 });
    expect(await obs.billing.total({ sinceMs: 1_500 })).toMatchObject({ callCount: 1 });
    expect(await obs.billing.byAgent('nobody', {})).toEqual({
      totalCost: 0,
      totalTokens: 0,
      callCount: 0,
      totalCacheSaved: 0,
    });
  });

  it('sums tokens and cost per provider', async () => {
    stack = startObs();
    const { recorder, obs } = stack;
    recorder.usage(usage({ provider: 'cloud', model: 'x' }));
    recorder.usage(usage({ provider: 'cloud', model: 'y', inputTokens: 1 }));
    recorder.usage(usage({ provider: 'local' }));
    expect(await obs.billing.byProvider({})).toEqual({
      providers: [
        { provider: 'cloud', inputTokens: 101, outputTokens: 100, estimatedCostUsd: 0.02 },
        { provider: 'local', inputTokens: 100, outputTokens: 50, estimatedCostUsd: 0.01 },
      ],
    });
  });

  it('usage24h gives 24 UTC hours of tokens over the last day', async () => {
    stack = startObs();
    const { recorder, obs, clock } = stack;
    recorder.usage(usage({ ts: clock.now - HOUR }));
    recorder.usage(usage({ ts: clock.now - 25 * HOUR }));
    const hours = await obs.billing.usage24h();
    expect(hours).toHaveLength(24);
    expect(hours.map((entry) => entry.hour)).toEqual([...Array(24).keys()]);
    expect(hours[11]).toEqual({ hour: 11, tokens: 150 });
    expect(hours.reduce((sum, entry) => sum + entry.tokens, 0)).toBe(150);
  });

  it('prompt cache stats: hits, misses, hit rate, cached tokens and savings per provider', async () => {
    stack = startObs();
    const { recorder, obs } = stack;
    recorder.usage(usage({ provider: 'cloud', cacheReadTokens: 500_000 }));
    recorder.usage(usage({ provider: 'cloud' }));
    recorder.usage(usage({ provider: 'local', cacheReadTokens: 10 }));
    expect(await obs.cacheStats()).toEqual({
      hits: 2,
      misses: 1,
      hitRate: 0.6667,
      cachedTokens: 500_010,
      savingsUsd: 1.35,
      providers: [
        { provider: 'cloud', hits: 1, misses: 1, hitRate: 0.5, cachedTokens: 500_000, savingsUsd: 1.35 },
        { provider: 'local', hits: 1, misses: 0, hitRate: 1, cachedTokens: 10, savingsUsd: 0 },
      ],
    });
  });

  it('reset deletes token usage, including the buffered rows', async () => {
    stack = startObs();
    stack.recorder.usage(usage({}));
    expect(await stack.obs.resetTable('token_usage')).toBe(1);
    expect((await stack.obs.billing.total({})).callCount).toBe(0);
  });
});
