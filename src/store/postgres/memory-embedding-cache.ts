// The persistent embedding cache on PostgreSQL: vectors by model and content hash, capped, least recently used out first.
import type { EmbeddingCacheStats } from '../ports/index.js';
import { transaction, type PgPool } from './pool.js';

export interface EmbeddingCacheOptions {
  /** Most vectors kept; past it the least recently used are evicted. */
  maxEntries: number;
  /** How many are evicted at once past the cap (so a full cache does not evict on every write); 1 keeps it exact. */
  evictionBatch: number;
  now: () => number;
}

/** Hits, misses and evictions count from this process's start (per replica); `entries` is what the table holds. */
export function createEmbeddingCache(pool: PgPool, { maxEntries, evictionBatch, now }: EmbeddingCacheOptions) {
  let hits = 0;
  let misses = 0;
  let evictions = 0;
  // An upper bound on the rows held as far as this replica knows, so COUNT(*) runs only near the cap.
  let estimatedEntries: number | undefined;
  const count = async () =>
    (await pool.query<{ n: number }>('SELECT COUNT(*) AS n FROM memory_embedding_cache')).rows[0]?.n ?? 0;

  const evictIfFull = () =>
    transaction(pool, async (client) => {
      const entries =
        (await client.query<{ n: number }>('SELECT COUNT(*) AS n FROM memory_embedding_cache')).rows[0]?.n ?? 0;
      estimatedEntries = entries;
      if (entries <= maxEntries) return;
      const evicted = await client.query(
        `DELETE FROM memory_embedding_cache WHERE (model, content_hash) IN (
           SELECT model, content_hash FROM memory_embedding_cache ORDER BY last_used_at, created_at, model, content_hash LIMIT $1 FOR UPDATE SKIP LOCKED)`,
        [Math.min(entries, entries - maxEntries + Math.max(1, evictionBatch) - 1)],
      );
      evictions += evicted.rowCount ?? 0;
      estimatedEntries = entries - (evicted.rowCount ?? 0);
    });

  return {
    async get(model: string, contentHash: string): Promise<Float32Array | undefined> {
      const row = (
        await pool.query<{ vector: number[] }>(
          'UPDATE memory_embedding_cache SET last_used_at = $1 WHERE model = $2 AND content_hash = $3 RETURNING vector',
          [now(), model, contentHash],
        )
      ).rows[0];
      if (row === undefined) {
        misses += 1;
        return undefined;
      }
      hits += 1;
      return Float32Array.from(row.vector);
    },
    async put(model: string, contentHash: string, values: Float32Array): Promise<void> {
      const at = now();
      await pool.query(
        `INSERT INTO memory_embedding_cache (model, content_hash, vector, created_at, last_used_at) VALUES ($1, $2, $3::real[], $4, $4)
         ON CONFLICT (model, content_hash) DO UPDATE SET vector = excluded.vector, last_used_at = excluded.last_used_at`,
        [model, contentHash, Array.from(values), at],
      );
      estimatedEntries = (estimatedEntries ?? (await count())) + 1;
      if (estimatedEntries > maxEntries) await evictIfFull();
    },
    async stats(): Promise<EmbeddingCacheStats> {
      const lookups = hits + misses;
      return { entries: await count(), hits, misses, evictions, hitRate: lookups === 0 ? 0 : hits / lookups };
    },
  };
}
