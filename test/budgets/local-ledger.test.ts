// The in-process ledger: concurrent reservations never pass a block limit together, a settlement replaces the
// reservation by what was used, an unsettled reservation expires, and a new UTC day starts from nothing.
import { describe, expect, it } from 'vitest';
import { createLocalLedger } from '../../src/budgets/index.js';
import { budgetSchema } from '../../src/config/budgets-schema.js';

const subject = { agentId: 'coder', tokenId: 'ci', tenantId: 'default' };
const cent = budgetSchema.parse({ id: 'cent', scope: 'agent:coder', maxCostUsd: 0.01 });

function ledgerAt(start: number) {
  const clock = { now: start };
  let ids = 0;
  const ledger = createLocalLedger({ budgets: () => [cent], now: () => clock.now, newId: () => `r${++ids}` });
  return { ledger, clock };
}

describe('in-process budget ledger', () => {
  it('lets only as many concurrent worst cases through as fit the limit', async () => {
    const { ledger } = ledgerAt(Date.UTC(2026, 10, 28, 12));
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => ledger.reserve(subject, { costMicroUsd: 3_000, tokens: 100 }, 60_000)),
    );
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(3);
    const [usage] = await ledger.usage('agent:coder');
    expect(usage?.reserved).toEqual({ costMicroUsd: 9_000, tokens: 300 });
  });

  it('settles a reservation to the real use, freeing the rest', async () => {
    const { ledger } = ledgerAt(Date.UTC(2026, 10, 28, 12));
    const first = await ledger.reserve(subject, { costMicroUsd: 9_000, tokens: 100 }, 60_000);
    if (!first.ok) throw new Error('the first reservation fits');
    expect((await ledger.reserve(subject, { costMicroUsd: 2_000, tokens: 1 }, 60_000)).ok).toBe(false);
    await ledger.settle(first.reservation, { costMicroUsd: 1_000, tokens: 40 });
    expect((await ledger.reserve(subject, { costMicroUsd: 2_000, tokens: 1 }, 60_000)).ok).toBe(true);
    const [usage] = await ledger.usage();
    expect(usage?.used).toEqual({ costMicroUsd: 1_000, tokens: 40 });
  });

  it('forgets a reservation nobody settled once its ttl has passed', async () => {
    const { ledger, clock } = ledgerAt(Date.UTC(2026, 10, 28, 12));
    expect((await ledger.reserve(subject, { costMicroUsd: 10_000, tokens: 1 }, 30_000)).ok).toBe(true);
    expect((await ledger.reserve(subject, { costMicroUsd: 1, tokens: 1 }, 30_000)).ok).toBe(false);
    clock.now += 30_000;
    expect((await ledger.reserve(subject, { costMicroUsd: 1, tokens: 1 }, 30_000)).ok).toBe(true);
  });

  it('starts a new UTC day from nothing, and refuses until then with the wait to midnight', async () => {
    const { ledger, clock } = ledgerAt(Date.UTC(2026, 10, 28, 23, 59));
    const spent = await ledger.reserve(subject, { costMicroUsd: 10_000, tokens: 1 }, 30_000);
    if (!spent.ok) throw new Error('fits');
    await ledger.settle(spent.reservation, { costMicroUsd: 10_000, tokens: 1 });
    expect(await ledger.reserve(subject, { costMicroUsd: 1, tokens: 1 }, 30_000)).toEqual({
      ok: false,
      budgetId: 'cent',
      retryAfterMs: 60_000,
    });
    clock.now = Date.UTC(2026, 10, 29);
    expect((await ledger.reserve(subject, { costMicroUsd: 10_000, tokens: 1 }, 30_000)).ok).toBe(true);
  });
});
