// Billing from recorded token usage. The recorder's buffer (the current run's unflushed calls) is flushed before
// every read, so each call is counted exactly once: in-memory data and stored history are the same table.
import type { ObsPort, UsageGroup } from '../store/index.js';
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
  /** Tokens per UTC hour of day (0-23) over the last 24 hours; always 24 entries, hour 0 first. */
  usage24h(): Promise<{ hour: number; tokens: number }[]>;
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
      const byHour = new Map(
        (await port.usageByHour({ afterMs: at - 24 * HOUR_MS, untilMs: at })).map((row) => [row.hour, row.tokens]),
      );
      return Array.from({ length: 24 }, (_, hour) => ({ hour, tokens: byHour.get(hour) ?? 0 }));
    },
    async reset() {
      await flush();
      return port.reset('token_usage');
    },
  };
}
