// memory.stats, memory.inspect without id and GET /api/memory/stats: one statistics object for a scope.
import type { MemoryPort, MemoryScope } from '../store/index.js';

export type MemoryStatsReader = (scope: MemoryScope) => Promise<{
  totalEntries: number;
  dbSizeBytes: number;
  embeddingProvider: string;
  cacheHitRate: number;
  byType: Record<string, number>;
  untrusted: number;
  demoted: number;
  vectorsByModel: Record<string, number>;
}>;

/** The catalogue's fields (totalEntries, dbSizeBytes, embeddingProvider, cacheHitRate) and the port's breakdown. */
export function memoryStatsReader(
  port: Pick<MemoryPort, 'stats' | 'embeddingCacheStats'>,
  embedder: { readonly label: string },
): MemoryStatsReader {
  return async (scope) => {
    const [store, cache] = await Promise.all([port.stats(scope), port.embeddingCacheStats()]);
    return {
      totalEntries: store.totalEntries,
      dbSizeBytes: store.dbSizeBytes,
      embeddingProvider: embedder.label,
      cacheHitRate: cache.hitRate,
      byType: store.byType,
      untrusted: store.untrusted,
      demoted: store.demoted,
      vectorsByModel: store.vectorsByModel,
    };
  };
}
