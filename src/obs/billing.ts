// Billing from recorded token usage. The recorder's buffer (the current run's unflushed calls) is flushed before
// every read, so each call is counted exactly once: in-memory data and stored history are the same table.
import type { ObsPort, SpendKey, UsageGroup } from '../store/index.js';
import { readSpend, type SpendReport, type SpendWindow } from './billing-spend.js';
import { round } from './evidence/read.js';
import { cacheSavingsUsd, type PriceLookup } from './pricing.js';

export interface BillingTotals {
  totalCost: number;
  totalTokens: number;
  callCount: number;
  /** Estimated USD saved by prompt-cache reads (catalogue input price minus cache-read price). */
  totalCacheSaved: number;
}

export interface ProviderBilling {
  provider: string;
  inputTokens: number;
  outputTokens: number;
  estimatedCostUsd: number;
}

export interface Billing {
  total(filter: { sinceMs?: number }): Promise<BillingTotals>;
  byAgent(agentId: string, filter: { sinceMs?: number }): Promise<BillingTotals>;
  bySession(sessionKey: string, filter: { sinceMs?: number }): Promise<BillingTotals>;
  byProvider(filter: { sinceMs?: number }): Promise<{ providers: ProviderBilling[] }>;
  /**
   * Tokens per UTC hour of day (0-23) of the 24 hours ending with the current one (from the top of the hour 23 hours
   * ago to now); always 24 entries, hour 0 first.
   */
  usage24h(): Promise<{ hour: number; tokens: number }[]>;
  /** Cost and tokens per agent, provider/model or owner token over the window, with a series ending at now. */
  spend(params: { window: SpendWindow; by: SpendKey }): Promise<SpendReport>;
  reset(): Promise<number>;
}

export interface BillingDeps {
  port: ObsPort;
  /** Writes the buffered usage rows of the current run. */
  flush: () => Promise<void>;
  now: () => number;
  priceOf?: PriceLookup;
}

const HOUR_MS = 3_600_000;

export function createBilling({ port, flush, now, priceOf }: BillingDeps): Billing {
  async function groups(
    filter: { agentId?: string; sessionKey?: string },
    sinceMs: number | undefined,
  ): Promise<UsageGroup[]> {
    await flush();
    return port.usageGroups({ ...filter, sinceMs: sinceMs ?? 0 });
  }

  function totals(rows: readonly UsageGroup[]): BillingTotals {
    let totalCost = 0;
    let totalTokens = 0;
    let callCount = 0;
    let saved = 0;
    for (const row of rows) {
      totalCost += row.costUsd;
      totalTokens += row.inputTokens + row.outputTokens;
      callCount += row.calls;
      saved += cacheSavingsUsd(priceOf?.(row.provider, row.model), row.cacheReadTokens);
    }
    return { totalCost: round(totalCost, 6), totalTokens, callCount, totalCacheSaved: round(saved, 6) };
  }

  return {
    total: async ({ sinceMs }) => totals(await groups({}, sinceMs)),
    byAgent: async (agentId, { sinceMs }) => totals(await groups({ agentId }, sinceMs)),
    bySession: async (sessionKey, { sinceMs }) => totals(await groups({ sessionKey }, sinceMs)),
    async byProvider({ sinceMs }) {
      const byName = new Map<string, ProviderBilling>();
      for (const row of await groups({}, sinceMs)) {
        const entry = byName.get(row.provider) ?? {
          provider: row.provider,
          inputTokens: 0,
          outputTokens: 0,
          estimatedCostUsd: 0,
        };
        entry.inputTokens += row.inputTokens;
        entry.outputTokens += row.outputTokens;
        entry.estimatedCostUsd = round(entry.estimatedCostUsd + row.costUsd, 6);
        byName.set(row.provider, entry);
      }
      return { providers: [...byName.values()] };
    },
    async usage24h() {
      await flush();
      const at = now();
      // From the top of the hour 23 hours ago: the current hour's bucket holds only this hour, not also the same
      // clock hour of yesterday (the window is exclusive at its start).
      const firstHourStart = at - (at % HOUR_MS) - 23 * HOUR_MS;
      const byHour = new Map(
        (await port.usageByHour({ afterMs: firstHourStart - 1, untilMs: at })).map((row) => [row.hour, row.tokens]),
      );
      return Array.from({ length: 24 }, (_, hour) => ({ hour, tokens: byHour.get(hour) ?? 0 }));
    },
    async spend(params) {
      await flush();
      return readSpend(port, { ...params, nowMs: now() });
    },
    async reset() {
      await flush();
      return port.reset('token_usage');
    },
  };
}
