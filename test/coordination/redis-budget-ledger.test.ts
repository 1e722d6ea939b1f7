// The budget ledger in Redis: two replicas on one Redis never pass a limit together, a crashed replica's reservation
// expires, a UTC day rolls over at midnight on a fake clock, warn budgets warn and block budgets refuse, a settlement
// after its reservation expired still counts, and a replica that lost Redis refuses rather than skipping a budget.
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createBudgetLedger, type BudgetLedger } from '../../src/budgets/index.js';
import { budgetSchema } from '../../src/config/budgets-schema.js';
import type { BudgetConfig } from '../../src/config/index.js';
import { GatewayError } from '../../src/errors.js';
import { createLogger } from '../../src/obs/logger.js';
import type { BudgetUsagePort } from '../../src/store/index.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startReplica, type Replica } from './redis-fixture.js';

const subject = { agentId: 'coder', tokenId: 'ci', tenantId: 'default' };
const cent = budgetSchema.parse({ id: 'cent', scope: 'agent:coder', maxCostUsd: 0.01 });
const log = createLogger({ level: 'silent' });

/** Under Redis the store's usage is never touched: any call to it fails the test. */
const noStore: BudgetUsagePort = {
  addUsage: () => Promise.reject(new Error('the Redis ledger wrote to the store')),
  readUsage: () => Promise.reject(new Error('the Redis ledger read the store')),
  deleteUsageBefore: () => Promise.reject(new Error('the Redis ledger pruned the store')),
};

describe('budget ledger in redis', () => {
  let redis: RedisServer;
  let prefix = 0;
  const opened: Replica[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    for (const replica of opened.splice(0)) await replica.coordination.close();
  });
  afterAll(async () => {
    await redis.stop();
  });

  /** Two replicas on one Redis (a key prefix per test), their ledgers on one fake clock and one budget list. */
  async function replicas(budgets: BudgetConfig[], start: number) {
    const clock = { now: start };
    const keyPrefix = `budgets${++prefix}:`;
    const ledgers: BudgetLedger[] = [];
    const pair: Replica[] = [];
    for (const name of ['a', 'b']) {
      const replica = await startReplica(redis.url, { keyPrefix });
      opened.push(replica);
      pair.push(replica);
      let ids = 0;
      ledgers.push(
        await createBudgetLedger({
          budgets: () => budgets,
          now: () => clock.now,
          newId: () => `${name}${++ids}`,
          usage: noStore,
          log,
          ...(replica.coordination.budgetLedger === undefined ? {} : { shared: replica.coordination.budgetLedger }),
        }),
      );
    }
    const [a, b] = ledgers;
    if (a === undefined || b === undefined) throw new Error('two ledgers');
    return { a, b, clock, replicas: pair };
  }

  it('lets 20 concurrent calls split over two replicas settle no more than the limit together', async () => {
    const { a, b } = await replicas([cent], Date.UTC(2026, 10, 28, 12));
    const settled: number[] = [];
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, async (_, call) => {
        const ledger = call % 2 === 0 ? a : b;
        const outcome = await ledger.reserve(subject, { costMicroUsd: 3_000, tokens: 100 }, 60_000);
        if (!outcome.ok) return outcome;
        await ledger.settle(outcome.reservation, { costMicroUsd: 3_000, tokens: 90 });
        settled.push(3_000);
        return outcome;
      }),
    );
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(3);
    expect(settled.reduce((sum, cost) => sum + cost, 0)).toBe(9_000);
    for (const ledger of [a, b]) {
      const [usage] = await ledger.usage('agent:coder');
      expect(usage).toMatchObject({
        budgetId: 'cent',
        used: { costMicroUsd: 9_000, tokens: 270 },
        reserved: { costMicroUsd: 0, tokens: 0 },
        limits: { maxCostUsd: 0.01 },
      });
    }
    expect(await b.reserve(subject, { costMicroUsd: 1_001, tokens: 1 }, 60_000)).toMatchObject({
      ok: false,
      budgetId: 'cent',
    });
    expect((await a.reserve(subject, { costMicroUsd: 1_000, tokens: 1 }, 60_000)).ok).toBe(true);
  });

  it("frees a crashed replica's unsettled reservation once its ttl has passed, not before", async () => {
    const {
      a,
      b,
      clock,
      replicas: [first],
    } = await replicas([cent], Date.UTC(2026, 10, 28, 12));
    expect((await a.reserve(subject, { costMicroUsd: 10_000, tokens: 1 }, 30_000)).ok).toBe(true);
    // The replica goes away without settling or releasing.
    await first?.coordination.close();
    expect((await b.reserve(subject, { costMicroUsd: 1, tokens: 1 }, 30_000)).ok).toBe(false);
    expect((await b.usage())[0]?.reserved).toEqual({ costMicroUsd: 10_000, tokens: 1 });
    clock.now += 29_999;
    expect((await b.reserve(subject, { costMicroUsd: 1, tokens: 1 }, 30_000)).ok).toBe(false);
    clock.now += 1;
    expect((await b.reserve(subject, { costMicroUsd: 9_000, tokens: 1 }, 30_000)).ok).toBe(true);
    expect((await b.usage())[0]?.reserved).toEqual({ costMicroUsd: 9_000, tokens: 1 });
  });

  it('starts a new UTC day from nothing at midnight, and refuses until then with the wait to it', async () => {
    const { a, b, clock } = await replicas([cent], Date.UTC(2026, 10, 28, 23, 59));
    const spent = await a.reserve(subject, { costMicroUsd: 10_000, tokens: 1 }, 30_000);
    if (!spent.ok) throw new Error('fits');
    await a.settle(spent.reservation, { costMicroUsd: 10_000, tokens: 1 });
    expect(await b.reserve(subject, { costMicroUsd: 1, tokens: 1 }, 30_000)).toEqual({
      ok: false,
      budgetId: 'cent',
      retryAfterMs: 60_000,
    });
    clock.now = Date.UTC(2026, 10, 29) - 1;
    expect((await b.reserve(subject, { costMicroUsd: 1, tokens: 1 }, 30_000)).ok).toBe(false);
    clock.now = Date.UTC(2026, 10, 29);
    expect((await b.reserve(subject, { costMicroUsd: 10_000, tokens: 1 }, 30_000)).ok).toBe(true);
    expect((await a.usage())[0]).toMatchObject({
      windowStart: Date.UTC(2026, 10, 29),
      windowEnd: Date.UTC(2026, 10, 30),
      used: { costMicroUsd: 0, tokens: 0 },
    });
  });

  it('counts a rolling window by its minute buckets: use leaves it once the window has moved past', async () => {
    const hour = budgetSchema.parse({
      id: 'hour',
      scope: 'token:ci',
      window: { rollingMs: 3_600_000 },
      maxTokens: 100,
    });
    const start = Date.UTC(2026, 10, 28, 12);
    const { a, b, clock } = await replicas([hour], start);
    const spent = await a.reserve(subject, { costMicroUsd: 0, tokens: 100 }, 30_000);
    if (!spent.ok) throw new Error('fits');
    await a.settle(spent.reservation, { costMicroUsd: 0, tokens: 100 });
    clock.now = start + 3_600_000;
    expect((await b.reserve(subject, { costMicroUsd: 0, tokens: 1 }, 30_000)).ok).toBe(false);
    clock.now = start + 3_600_000 + 60_000;
    expect((await b.reserve(subject, { costMicroUsd: 0, tokens: 100 }, 30_000)).ok).toBe(true);
  });

  it('warns at the fraction on a warn budget and never refuses; a block budget refuses, the first in config order named', async () => {
    const warn = budgetSchema.parse({ id: 'soft', scope: 'tenant:default', maxCostUsd: 0.01, action: 'warn' });
    const tokens = budgetSchema.parse({ id: 'tokens', scope: 'global', maxTokens: 1_000 });
    const hard = budgetSchema.parse({ id: 'hard', scope: 'agent:coder', maxTokens: 1_000 });
    const { a, b } = await replicas([warn, tokens, hard], Date.UTC(2026, 10, 28, 12));
    expect(await a.reserve(subject, { costMicroUsd: 7_000, tokens: 100 }, 60_000)).toMatchObject({
      ok: true,
      warnings: [],
    });
    expect(await b.reserve(subject, { costMicroUsd: 1_000, tokens: 100 }, 60_000)).toMatchObject({
      ok: true,
      warnings: ['soft'],
    });
    // Past the warn budget's limit: it still lets the call through, and warns.
    expect(await a.reserve(subject, { costMicroUsd: 5_000, tokens: 600 }, 60_000)).toMatchObject({
      ok: true,
      warnings: ['soft', 'tokens', 'hard'],
    });
    // Both block budgets would be crossed: the one listed first is named.
    expect(await b.reserve(subject, { costMicroUsd: 0, tokens: 201 }, 60_000)).toMatchObject({
      ok: false,
      budgetId: 'tokens',
    });
    expect((await a.usage('global'))[0]?.reserved).toEqual({ costMicroUsd: 13_000, tokens: 800 });
  });

  it('counts a settlement that comes after its reservation expired', async () => {
    const { a, b, clock } = await replicas([cent], Date.UTC(2026, 10, 28, 12));
    const late = await a.reserve(subject, { costMicroUsd: 5_000, tokens: 1 }, 1_000);
    if (!late.ok) throw new Error('fits');
    clock.now += 2_000;
    expect((await b.usage())[0]?.reserved).toEqual({ costMicroUsd: 0, tokens: 0 });
    // This reservation's purge drops the expired one before the late settlement arrives.
    expect((await b.reserve(subject, { costMicroUsd: 1_000, tokens: 1 }, 60_000)).ok).toBe(true);
    await a.settle(late.reservation, { costMicroUsd: 9_000, tokens: 5 });
    expect((await b.reserve(subject, { costMicroUsd: 1, tokens: 1 }, 60_000)).ok).toBe(false);
    expect((await b.usage())[0]).toMatchObject({
      used: { costMicroUsd: 9_000, tokens: 5 },
      reserved: { costMicroUsd: 1_000, tokens: 1 },
    });
  });

  it('releases a reservation whose call never ran, on every replica', async () => {
    const { a, b } = await replicas([cent], Date.UTC(2026, 10, 28, 12));
    const held = await a.reserve(subject, { costMicroUsd: 10_000, tokens: 1 }, 60_000);
    if (!held.ok) throw new Error('fits');
    expect((await b.reserve(subject, { costMicroUsd: 1, tokens: 1 }, 60_000)).ok).toBe(false);
    await a.release(held.reservation);
    expect((await b.reserve(subject, { costMicroUsd: 10_000, tokens: 1 }, 60_000)).ok).toBe(true);
  });

  it('refuses with coordination unreachable, rather than skipping the budget, once Redis cannot be reached', async () => {
    const own = await startRedisServer();
    const replica = await startReplica(own.url);
    try {
      const ledger = await createBudgetLedger({
        budgets: () => [cent],
        now: () => Date.UTC(2026, 10, 28, 12),
        usage: noStore,
        log,
        ...(replica.coordination.budgetLedger === undefined ? {} : { shared: replica.coordination.budgetLedger }),
      });
      expect((await ledger.reserve(subject, { costMicroUsd: 1, tokens: 1 }, 60_000)).ok).toBe(true);
      await own.stop();
      const refusal = await ledger
        .reserve(subject, { costMicroUsd: 1, tokens: 1 }, 60_000)
        .catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(GatewayError);
      expect(refusal).toMatchObject({ kind: 'unavailable' });
      await expect(ledger.usage()).rejects.toMatchObject({ kind: 'unavailable' });
    } finally {
      await replica.coordination.close();
      await own.stop();
    }
  });

  // Not warmed, the timed-out try never ran (the server did not know the script yet): only the retry can count it.
  // Warmed, the timed-out try ran once Redis woke up: the retry must not count it again.
  it.each([
    ['never ran', false],
    ['ran late', true],
  ])(
    'counts a settlement whose write timed out (and %s) exactly once when Redis answers again',
    async (_, warmed) => {
      const own = await startRedisServer();
      const replica = await startReplica(own.url);
      try {
        const ledger = await createBudgetLedger({
          budgets: () => [cent],
          now: () => Date.UTC(2026, 10, 28, 12),
          usage: noStore,
          log,
          ...(replica.coordination.budgetLedger === undefined ? {} : { shared: replica.coordination.budgetLedger }),
        });
        if (warmed) {
          const warm = await ledger.reserve(subject, { costMicroUsd: 0, tokens: 0 }, 600_000);
          if (warm.ok) await ledger.settle(warm.reservation, { costMicroUsd: 0, tokens: 0 });
        }
        const call = await ledger.reserve(subject, { costMicroUsd: 9_500, tokens: 1 }, 600_000);
        if (!call.ok) throw new Error('fits');
        // Redis hangs: the settlement is sent but not answered within the command timeout.
        process.kill(own.pid, 'SIGSTOP');
        try {
          await ledger.settle(call.reservation, { costMicroUsd: 9_000, tokens: 3 });
        } finally {
          process.kill(own.pid, 'SIGCONT');
        }
        // The next reservation first writes the kept settlement; the timed-out try already ran, so it counts once.
        expect(await ledger.reserve(subject, { costMicroUsd: 1_001, tokens: 1 }, 60_000)).toMatchObject({ ok: false });
        expect((await ledger.usage())[0]).toMatchObject({
          used: { costMicroUsd: 9_000, tokens: 3 },
          reserved: { costMicroUsd: 0, tokens: 0 },
        });
      } finally {
        await replica.coordination.close();
        await own.stop();
      }
    },
    20_000,
  );
});
