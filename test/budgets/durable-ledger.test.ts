// The in-process ledger's durable use (SQLite single instance, PostgreSQL without Redis): what was settled is still
// counted after the gateway closes and opens the store again, a write that failed is retried rather than lost, and
// buckets no window can count any more are pruned.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBudgetLedger } from '../../src/budgets/index.js';
import { budgetSchema } from '../../src/config/budgets-schema.js';
import { createLogger } from '../../src/obs/logger.js';
import type { BudgetUsagePort, StorePorts } from '../../src/store/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';

const subject = { agentId: 'coder', tokenId: 'ci', tenantId: 'default' };
const cent = budgetSchema.parse({ id: 'cent', scope: 'agent:coder', maxCostUsd: 0.01 });
const noon = Date.UTC(2026, 10, 28, 12);
const DAY = 86_400_000;

describe('durable in-process budget ledger', () => {
  let dir = '';
  const stores: StorePorts[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function openStore(): Promise<StorePorts> {
    if (dir === '') dir = await mkdtemp(join(tmpdir(), 'agent-gateway-budget-ledger-'));
    const store = openSqliteStore({ path: join(dir, 'gateway.db'), log: createLogger({ level: 'silent' }) });
    stores.push(store);
    return store;
  }

  const ledgerOn = (usage: BudgetUsagePort, at: { now: number }, log = createLogger({ level: 'silent' })) =>
    createBudgetLedger({ budgets: () => [cent], now: () => at.now, usage, log, flushMs: 5 });

  it("keeps the day's settled use across a close and a reopen of the store: the next call is refused", async () => {
    const clock = { now: noon };
    const first = await openStore();
    const before = await ledgerOn(first.budgets, clock);
    const call = await before.reserve(subject, { costMicroUsd: 9_500, tokens: 10 }, 60_000);
    if (!call.ok) throw new Error('fits');
    await before.settle(call.reservation, { costMicroUsd: 9_000, tokens: 8 });
    await before.close();
    await first.close();
    stores.splice(0);

    const second = await openStore();
    const after = await ledgerOn(second.budgets, clock);
    expect(await after.reserve(subject, { costMicroUsd: 1_001, tokens: 1 }, 60_000)).toMatchObject({
      ok: false,
      budgetId: 'cent',
    });
    expect((await after.usage())[0]?.used).toEqual({ costMicroUsd: 9_000, tokens: 8 });
    // The next UTC day starts from nothing, also after a restart.
    clock.now = noon + DAY;
    expect((await after.reserve(subject, { costMicroUsd: 10_000, tokens: 1 }, 60_000)).ok).toBe(true);
    await after.close();
  });

  it('writes settled use behind the call, and retries a write that failed instead of dropping it', async () => {
    const store = await openStore();
    const clock = { now: noon };
    const attempts: (() => void)[] = [];
    let writes = 0;
    const secondWrite = new Promise<void>((resolve) => attempts.push(resolve));
    const flaky: BudgetUsagePort = {
      ...store.budgets,
      async addUsage(rows) {
        writes += 1;
        if (writes === 1) throw new Error('disk full');
        await store.budgets.addUsage(rows);
        attempts.shift()?.();
      },
    };
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', destination: { write: (line: string) => void lines.push(line) } });
    const ledger = await ledgerOn(flaky, clock, log);
    const call = await ledger.reserve(subject, { costMicroUsd: 4_000, tokens: 4 }, 60_000);
    if (!call.ok) throw new Error('fits');
    await ledger.settle(call.reservation, { costMicroUsd: 4_000, tokens: 4 });
    // settle does not wait for the store: nothing is written yet.
    expect(writes).toBe(0);
    await secondWrite;
    expect(lines.map((line) => z.object({ msg: z.string() }).parse(JSON.parse(line)).msg)).toEqual([
      'could not write budget usage; retrying',
    ]);
    expect(await store.budgets.readUsage(0)).toEqual([
      { budgetId: 'cent', bucketStart: Date.UTC(2026, 10, 28), costMicroUsd: 4_000, tokens: 4 },
    ]);
    await ledger.close();
  });

  it('prunes buckets no window can count any more when it writes, and never loads them', async () => {
    const store = await openStore();
    const old = { budgetId: 'cent', bucketStart: Date.UTC(2026, 9, 20), costMicroUsd: 10_000, tokens: 1 };
    await store.budgets.addUsage([old]);
    const ledger = await ledgerOn(store.budgets, { now: noon });
    const call = await ledger.reserve(subject, { costMicroUsd: 1_000, tokens: 1 }, 60_000);
    if (!call.ok) throw new Error('the 39-day-old bucket does not count');
    await ledger.settle(call.reservation, { costMicroUsd: 1_000, tokens: 1 });
    await ledger.close();
    expect(await store.budgets.readUsage(0)).toEqual([
      { budgetId: 'cent', bucketStart: Date.UTC(2026, 10, 28), costMicroUsd: 1_000, tokens: 1 },
    ]);
  });
});
