// Prompt-cache statistics from recorded token usage: a call that read cached tokens is a hit, any other call a miss.
import type { ObsPort } from '../store/index.js';
import { round } from './evidence/read.js';
import { cacheSavingsUsd, type PriceLookup } from './pricing.js';

export interface CacheCounts {
  hits: number;
  misses: number;
  hitRate: number;
  cachedTokens: number;
  /** Estimated USD saved (catalogue input price minus cache-read price, per cached token). */
  savingsUsd: number;
}

export interface CacheStats extends CacheCounts {
  providers: ({ provider: string } & CacheCounts)[];
}

export interface CacheStatsDeps {
  port: ObsPort;
  flush: () => Promise<void>;
  priceOf?: PriceLookup;
}

function finish(counts: Omit<CacheCounts, 'hitRate'>): CacheCounts {
  const calls = counts.hits + counts.misses;
  return {
    hits: counts.hits,
    misses: counts.misses,
    hitRate: calls === 0 ? 0 : round(counts.hits / calls, 4),
    cachedTokens: counts.cachedTokens,
    savingsUsd: round(counts.savingsUsd, 6),
  };
}

export function createCacheStats({ port, flush, priceOf }: CacheStatsDeps): { read(): Promise<CacheStats> } {
  return {
    async read() {
      await flush();
      const total = { hits: 0, misses: 0, cachedTokens: 0, savingsUsd: 0 };
      const byProvider = new Map<string, typeof total>();
      for (const row of await port.cacheGroups()) {
        const saved = cacheSavingsUsd(priceOf?.(row.provider, row.model), row.cachedTokens);
        const entry = byProvider.get(row.provider) ?? { hits: 0, misses: 0, cachedTokens: 0, savingsUsd: 0 };
        for (const target of [entry, total]) {
          target.hits += row.hits;
          target.misses += row.misses;
          target.cachedTokens += row.cachedTokens;
          target.savingsUsd += saved;
        }
        byProvider.set(row.provider, entry);
      }
      return {
        ...finish(total),
        providers: [...byProvider.entries()].map(([provider, counts]) => ({ provider, ...finish(counts) })),
      };
    },
  };
}
