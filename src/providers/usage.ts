// The cost of a call's token usage in USD from the catalog prices, and prompt-cache statistics per agent.
import type { ModelCatalogEntry, TokenUsage } from './types.js';

/** Catalog prices are USD per million tokens; uncached input is billed at the input price. */
export function costUsd(usage: TokenUsage, cost: ModelCatalogEntry['cost'] | undefined): number {
  if (cost === undefined) return 0;
  const uncachedInput = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const total =
    uncachedInput * cost.input +
    usage.cacheReadTokens * cost.cacheRead +
    usage.cacheWriteTokens * cost.cacheWrite +
    usage.outputTokens * cost.output;
  return total / 1e6;
}

export interface CacheStats {
  /** Successful calls that read cached prompt tokens. */
  hits: number;
  misses: number;
  /** hits / (hits + misses); 0 before any call. */
  hitRate: number;
  cachedTokens: number;
}

export interface CacheStatsTracker {
  record(agentId: string, usage: TokenUsage): void;
  /** One agent's statistics, or all agents' together when agentId is omitted. */
  stats(agentId?: string): CacheStats;
}

export function createCacheStatsTracker(): CacheStatsTracker {
  const byAgent = new Map<string, { hits: number; misses: number; cachedTokens: number }>();
  return {
    record(agentId, usage) {
      const totals = byAgent.get(agentId) ?? { hits: 0, misses: 0, cachedTokens: 0 };
      if (usage.cacheReadTokens > 0) totals.hits += 1;
      else totals.misses += 1;
      totals.cachedTokens += usage.cacheReadTokens;
      byAgent.set(agentId, totals);
    },
    stats(agentId) {
      const selected =
        agentId === undefined ? [...byAgent.values()] : [byAgent.get(agentId)].filter((entry) => entry !== undefined);
      const hits = selected.reduce((sum, entry) => sum + entry.hits, 0);
      const misses = selected.reduce((sum, entry) => sum + entry.misses, 0);
      const cachedTokens = selected.reduce((sum, entry) => sum + entry.cachedTokens, 0);
      return { hits, misses, hitRate: hits + misses === 0 ? 0 : hits / (hits + misses), cachedTokens };
    },
  };
}
