// ObsPort conformance for the token-usage reads (billing, tokens per hour of day, prompt-cache hits, spend per agent,
// model or owner token and per time bucket) over usage the EvidencePort recorded: every backend answers the same groups, sums and order.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvidencePort, ObsPort, SessionPort, UsageRecord } from '../../src/store/index.js';

export interface UsageReadsHandle {
  evidence: EvidencePort;
  obs: ObsPort;
  sessions: SessionPort;
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

    it('sums spend per agent, provider/model or session owner token within [since, until], costliest first', async () => {
      const session = (sessionKey: string, ownerId: string | null) => ({
        sessionKey,
        agentId: 'default',
        tenantId: 'default',
        kind: 'dm' as const,
        createdAt: DAY_START,
        metadata: {},
        ownerId,
      });
      await handle.sessions.ensure(session('default:ann:ws', 'tok-ann'));
      await handle.sessions.ensure(session('default:bob:ws', 'tok-bob'));
      await handle.sessions.ensure(session('default:ops:ws', null));
      await handle.evidence.append(
        [
          usage({ ts: DAY_START + 23 * HOUR + 1, sessionKey: 'default:ops:ws', costUsd: 3 }),
          usage({ ts: DAY_START + 23 * HOUR + 2, sessionKey: 'default:gone:ws', agentId: '=cmd', costUsd: 0.125 }),
        ].map((record) => ({ type: 'usage', record })),
      );
      const window = { sinceMs: DAY_START + 1 * HOUR + 1, untilMs: DAY_START + 23 * HOUR + 2 };
      // The first seeded call (at since - 1) and nothing after until are outside.
      expect(await handle.obs.spendGroups({ ...window, by: 'agent' })).toEqual([
        { key: 'default', calls: 3, inputTokens: 21, outputTokens: 12, costUsd: 3.75 },
        { key: 'helper', calls: 1, inputTokens: 10, outputTokens: 5, costUsd: 0.5 },
        { key: '=cmd', calls: 1, inputTokens: 10, outputTokens: 5, costUsd: 0.125 },
      ]);
      expect(await handle.obs.spendGroups({ ...window, by: 'model' })).toEqual([
        { key: 'openai/gpt', calls: 3, inputTokens: 21, outputTokens: 12, costUsd: 3.625 },
        { key: 'anthropic/gpt', calls: 1, inputTokens: 10, outputTokens: 5, costUsd: 0.5 },
        { key: 'openai/mini', calls: 1, inputTokens: 10, outputTokens: 5, costUsd: 0.25 },
      ]);
      expect(await handle.obs.spendGroups({ ...window, by: 'token' })).toEqual([
        { key: null, calls: 2, inputTokens: 20, outputTokens: 10, costUsd: 3.125 },
        { key: 'tok-ann', calls: 2, inputTokens: 11, outputTokens: 7, costUsd: 0.75 },
        { key: 'tok-bob', calls: 1, inputTokens: 10, outputTokens: 5, costUsd: 0.5 },
      ]);
      expect(
        await handle.obs.spendGroups({ sinceMs: DAY_START + 1 * HOUR, untilMs: DAY_START + 1 * HOUR, by: 'agent' }),
      ).toEqual([{ key: 'default', calls: 1, inputTokens: 100, outputTokens: 5, costUsd: 0.5 }]);
    });

    it('sums spend per whole bucket since the window start, the bucket holding until last, empty buckets absent', async () => {
      const since = DAY_START + 1 * HOUR;
      expect(await handle.obs.spendBuckets({ sinceMs: since, untilMs: DAY_START + 23 * HOUR, bucketMs: HOUR })).toEqual(
        [
          { bucket: 0, calls: 2, tokens: 120, costUsd: 0.75 },
          { bucket: 12, calls: 1, tokens: 15, costUsd: 0.5 },
          { bucket: 22, calls: 1, tokens: 3, costUsd: 0.5 },
        ],
      );
      // A call just before the start and one just after the end are outside.
      expect(
        await handle.obs.spendBuckets({ sinceMs: since + 1, untilMs: DAY_START + 23 * HOUR - 1, bucketMs: 6 * HOUR }),
      ).toEqual([
        { bucket: 0, calls: 1, tokens: 15, costUsd: 0.25 },
        { bucket: 1, calls: 1, tokens: 15, costUsd: 0.5 },
      ]);
    });
  });
}
