// The persistent embedding cache on SQLite: vectors by model and content hash, capped, least recently used out first.
import type { EmbeddingCacheStats } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';
import { blobValues, vectorBlob } from './vector-sketch/index.js';

export interface EmbeddingCacheOptions {
  /** Most vectors kept; past it the least recently used are evicted. */
  maxEntries: number;
  /** How many are evicted at once past the cap (so a full cache does not evict on every write); 1 keeps it exact. */
  evictionBatch: number;
  now: () => number;
}

export interface EmbeddingCache {
  get(model: string, contentHash: string): Float32Array | undefined;
  put(model: string, contentHash: string, values: Float32Array): void;
  /** Hits, misses and evictions count from this process's start; `entries` is what the file holds. */
  stats(): EmbeddingCacheStats;
}

export function createEmbeddingCache(
  db: SqliteDatabase,
  { maxEntries, evictionBatch, now }: EmbeddingCacheOptions,
): EmbeddingCache {
  const lookup = db.prepare<[number, string, string], { vector: Buffer }>(
    'UPDATE memory_embedding_cache SET last_used_at = ? WHERE model = ? AND content_hash = ? RETURNING vector',
  );
  const upsert = db.prepare(
    `INSERT INTO memory_embedding_cache (model, content_hash, vector, created_at, last_used_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (model, content_hash) DO UPDATE SET vector = excluded.vector, last_used_at = excluded.last_used_at`,
  );
  const count = db.prepare<[], number>('SELECT COUNT(*) FROM memory_embedding_cache').pluck();
  const evictOldest = db.prepare<[number]>(
    `DELETE FROM memory_embedding_cache WHERE rowid IN (
       SELECT rowid FROM memory_embedding_cache ORDER BY last_used_at, rowid LIMIT ?
     )`,
  );
  let hits = 0;
  let misses = 0;
  let evictions = 0;
  // An upper bound on the rows held (a write may replace one rather than add), so COUNT(*) runs only near the cap.
  let estimatedEntries = count.get() ?? 0;

  const evictIfFull = db.transaction(() => {
    const entries = count.get() ?? 0;
    estimatedEntries = entries;
    if (entries <= maxEntries) return;
    const evicted = evictOldest.run(Math.min(entries, entries - maxEntries + Math.max(1, evictionBatch) - 1)).changes;
    evictions += evicted;
    estimatedEntries = entries - evicted;
  });

  return {
    get(model, contentHash) {
      const row = lookup.get(now(), model, contentHash);
      if (row === undefined) {
        misses += 1;
        return undefined;
      }
      hits += 1;
      return blobValues(row.vector);
    },
    put(model, contentHash, values) {
      const at = now();
      upsert.run(model, contentHash, vectorBlob(values), at, at);
      estimatedEntries += 1;
      if (estimatedEntries > maxEntries) evictIfFull.immediate();
    },
    stats() {
      const lookups = hits + misses;
      return { entries: count.get() ?? 0, hits, misses, evictions, hitRate: lookups === 0 ? 0 : hits / lookups };
    },
  };
}
