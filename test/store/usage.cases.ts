// ObsPort conformance for the token-usage reads (billing, tokens per hour of day, prompt-cache hits) over usage the
// EvidencePort recorded: every backend answers the same groups, sums and order.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvidencePort, ObsPort, UsageRecord } from '../../src/store/index.js';

export interface UsageReadsHandle {
  evidence: EvidencePort;
  obs: ObsPort;
  close(): Promise<void>;
}

const HOUR = 3_600_000;
/** 2026-01-15 at 00:00 UTC. */
const DAY_START = Date.UTC(2026, 0, 15);

const usage = (overrides: Partial<UsageRecord> & Pick<UsageRecord, 'ts'>): UsageRecord => ({
  agentId: 'default',
  sessionKey: 'default:ann:ws',
  provider: 'openai',
  model: 'gpt',
  inputTokens: 10,
  outputTokens: 5,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0.5,
  ...overrides,
});

export function usageReadsCases(name: string, open: () => Promise<UsageReadsHandle>): void {
  describe(`ObsPort usage reads: ${name}`, () => {
    let handle: UsageReadsHandle;
    beforeEach(async () => {
      handle = await open();
      await handle.evidence.append(
        [
          usage({ ts: DAY_START + 1 * HOUR, inputTokens: 100, cacheReadTokens: 40 }),
          usage({ ts: DAY_START + 1 * HOUR + 5, model: 'mini', costUsd: 0.25 }),
          usage({ ts: DAY_START + 13 * HOUR, provider: 'anthropic', agentId: 'helper', sessionKey: 'default:bob:ws' }),
          usage({ ts: DAY_START + 23 * HOUR, inputTokens: 1, outputTokens: 2, cacheReadTokens: 7 }),
        ].map((record) => ({ type: 'usage', record })),
      );
    });
    afterEach(async () => {
      await handle.close();
    });

    it('sums usage per provider and model since a time, of one agent or session when asked, ordered by them', async () => {
      expect(await handle.obs.usageGroups({ sinceMs: 0 })).toEqual([
        {
          provider: 'anthropic',
          model: 'gpt',
          calls: 1,
          inputTokens: 10,
          outputTokens: 5,
          cacheReadTokens: 0,
          costUsd: 0.5,
        },
        {
          provider: 'openai',
          model: 'gpt',
          calls: 2,
          inputTokens: 101,
          outputTokens: 7,
          cacheReadTokens: 47,
          costUsd: 1,
        },
        {
          provider: 'openai',
          model: 'mini',
          calls: 1,
          inputTokens: 10,
          outputTokens: 5,
          cacheReadTokens: 0,
          costUsd: 0.25,
        },
      ]);
      expect((await handle.obs.usageGroups({ sinceMs: DAY_START + 2 * HOUR })).map((group) => group.calls)).toEqual([
        1, 1,
      ]);
      expect((await handle.obs.usageGroups({ sinceMs: 0, agentId: 'helper' })).map((group) => group.provider)).toEqual([
        'anthropic',
      ]);
      expect(
        (await handle.obs.usageGroups({ sinceMs: 0, sessionKey: 'default:ann:ws' })).map((group) => group.model),
      ).toEqual(['gpt', 'mini']);
    });

    it('adds input and output tokens per UTC hour of day over (after, until], hours without calls absent', async () => {
      const byHour = async (afterMs: number, untilMs: number) =>
        [...(await handle.obs.usageByHour({ afterMs, untilMs }))].sort((left, right) => left.hour - right.hour);
      expect(await byHour(DAY_START, DAY_START + 24 * HOUR)).toEqual([
        { hour: 1, tokens: 120 },
        { hour: 13, tokens: 15 },
        { hour: 23, tokens: 3 },
      ]);
      expect(await byHour(DAY_START + 1 * HOUR, DAY_START + 13 * HOUR)).toEqual([
        { hour: 1, tokens: 15 },
        { hour: 13, tokens: 15 },
      ]);
    });

    it('counts the calls that read cached prompt tokens and those that did not, per provider and model', async () => {
      expect(await handle.obs.cacheGroups()).toEqual([
        { provider: 'anthropic', model: 'gpt', hits: 0, misses: 1, cachedTokens: 0 },
        { provider: 'openai', model: 'gpt', hits: 2, misses: 0, cachedTokens: 47 },
        { provider: 'openai', model: 'mini', hits: 0, misses: 1, cachedTokens: 0 },
      ]);
    });
  });
}
