// The BudgetUsagePort conformance suite: every backend runs these same cases against a fresh port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BudgetUsagePort } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

const DAY = 86_400_000;
const today = Date.UTC(2026, 10, 28);

export function budgetUsagePortCases(backend: string, open: () => Promise<PortFixture<BudgetUsagePort>>): void {
  describe(`BudgetUsagePort conformance (${backend})`, () => {
    let fixture: PortFixture<BudgetUsagePort>;
    let usage: BudgetUsagePort;
    beforeEach(async () => {
      fixture = await open();
      usage = fixture.port;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('adds increments to what a bucket holds, across calls and within one call', async () => {
      await usage.addUsage([{ budgetId: 'cent', bucketStart: today, costMicroUsd: 1_500, tokens: 40 }]);
      await usage.addUsage([
        { budgetId: 'cent', bucketStart: today, costMicroUsd: 2_000, tokens: 10 },
        { budgetId: 'cent', bucketStart: today, costMicroUsd: 1, tokens: 1 },
        { budgetId: 'month', bucketStart: Date.UTC(2026, 10, 1), costMicroUsd: 7, tokens: 0 },
      ]);
      await usage.addUsage([]);
      expect(await usage.readUsage(0)).toEqual([
        { budgetId: 'cent', bucketStart: today, costMicroUsd: 3_501, tokens: 51 },
        { budgetId: 'month', bucketStart: Date.UTC(2026, 10, 1), costMicroUsd: 7, tokens: 0 },
      ]);
    });

    it('counts every increment of concurrent writers to the same bucket', async () => {
      await Promise.all(
        Array.from({ length: 20 }, () =>
          usage.addUsage([{ budgetId: 'cent', bucketStart: today, costMicroUsd: 500, tokens: 3 }]),
        ),
      );
      expect(await usage.readUsage(today)).toEqual([
        { budgetId: 'cent', bucketStart: today, costMicroUsd: 10_000, tokens: 60 },
      ]);
    });

    it('keeps integers past 2^31 exact (a month of micro-USD, a trillion tokens)', async () => {
      const big = { budgetId: 'big', bucketStart: today, costMicroUsd: 999_999_999_999, tokens: 1_000_000_000_000 };
      await usage.addUsage([big]);
      await usage.addUsage([{ ...big, costMicroUsd: 1, tokens: 1 }]);
      expect(await usage.readUsage(today)).toEqual([
        { ...big, costMicroUsd: 1_000_000_000_000, tokens: 1_000_000_000_001 },
      ]);
    });

    it('writes a batch larger than one statement whole', async () => {
      const rows = Array.from({ length: 1_200 }, (_, minute) => ({
        budgetId: 'rolling',
        bucketStart: today + minute * 60_000,
        costMicroUsd: minute,
        tokens: 1,
      }));
      await usage.addUsage(rows);
      const read = await usage.readUsage(today);
      expect(read).toHaveLength(1_200);
      expect(read.at(-1)).toEqual(rows.at(-1));
    });

    it('reads buckets from a start on, and deletes only buckets before a cut-off', async () => {
      await usage.addUsage([
        { budgetId: 'a', bucketStart: today - 40 * DAY, costMicroUsd: 1, tokens: 1 },
        { budgetId: 'a', bucketStart: today - DAY, costMicroUsd: 2, tokens: 2 },
        { budgetId: 'a', bucketStart: today, costMicroUsd: 3, tokens: 3 },
        { budgetId: 'b', bucketStart: today - 40 * DAY, costMicroUsd: 4, tokens: 4 },
      ]);
      expect((await usage.readUsage(today - DAY)).map((row) => row.costMicroUsd)).toEqual([2, 3]);
      expect(await usage.deleteUsageBefore(today - DAY)).toBe(2);
      expect(await usage.deleteUsageBefore(today - DAY)).toBe(0);
      expect((await usage.readUsage(0)).map((row) => row.costMicroUsd)).toEqual([2, 3]);
    });
  });
}
