// The persistent embedding cache on both dialects: vectors by model and content hash, capped, least recently used out
// first. Each query has one shape, compiled once: a recall looks its query's embedding up on every turn.
import type { MemoryPort } from '../index.js';
import { first, prepared, type StoreDb } from './store-db.js';

/** The memory port's embedding-cache settings, as both backends take them. */
export interface EmbeddingCacheSettings {
  /** Most vectors kept (the `memory.embeddingCacheMaxEntries` default, 100,000, for a store opened without the config). */
  embeddingCacheMaxEntries?: number;
  /** How many are evicted at once past the cap (so a full cache does not evict on every write); 1 keeps it exact. */
  embeddingCacheEvictionBatch?: number;
  /** The cache's clock (last use), ms since the epoch. */
  now?: () => number;
}

/** How the backend stores a vector in the cache's `vector` column, and reads it back. */
export interface VectorCodec {
  encode(values: Float32Array): unknown;
  decode(stored: unknown): Float32Array;
}

/** The memory port's cache methods. */
type EmbeddingCache = Pick<MemoryPort, 'cachedEmbedding' | 'cacheEmbedding' | 'embeddingCacheStats'>;

export function createEmbeddingCache(
  store: StoreDb,
  codec: VectorCodec,
  {
    embeddingCacheMaxEntries: maxEntries = 100_000,
    embeddingCacheEvictionBatch: evictionBatch = 500,
    now = Date.now,
  }: EmbeddingCacheSettings,
): EmbeddingCache {
  const { db } = store;
  const table = 'memory_embedding_cache';
  const lookup = prepared(({ at, model, hash }: { at: number; model: string; hash: string }) =>
    db
      .updateTable(table)
      .set({ last_used_at: at })
      .where('model', '=', model)
      .where('content_hash', '=', hash)
      .returning('vector'),
  );
  const upsert = prepared(({ model, hash, vector, at }: { model: string; hash: string; vector: unknown; at: number }) =>
    db
      .insertInto(table)
      .values({ model, content_hash: hash, vector, created_at: at, last_used_at: at })
      .onConflict((conflict) =>
        conflict.columns(['model', 'content_hash']).doUpdateSet((eb) => ({
          vector: eb.ref('excluded.vector'),
          last_used_at: eb.ref('excluded.last_used_at'),
        })),
      ),
  );
  const countAll = prepared(() => db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')));
  // One statement: a replica evicting at the same time waits on these rows and finds them gone, so it evicts no more.
  const evictOldest = prepared(({ limit }: { limit: number }) =>
    db
      .deleteFrom(table)
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple('model', 'content_hash'),
          'in',
          selectFrom(table)
            .select(['model', 'content_hash'])
            .orderBy('last_used_at')
            .orderBy('created_at')
            .orderBy('model')
            .orderBy('content_hash')
            .limit(limit)
            .$asTuple('model', 'content_hash'),
        ),
      ),
  );
  let hits = 0;
  let misses = 0;
  let evictions = 0;
  // An upper bound on the rows held as far as this process knows, so COUNT(*) runs only near the cap.
  let estimatedEntries: number | undefined;
  const count = async () => Number((await first(store, countAll({})))?.n ?? 0);

  async function evictIfFull(): Promise<void> {
    const entries = await count();
    estimatedEntries = entries;
    if (entries <= maxEntries) return;
    const limit = Math.min(entries, entries - maxEntries + Math.max(1, evictionBatch) - 1);
    const evicted = await store.changes(evictOldest({ limit }));
    evictions += evicted;
    estimatedEntries = entries - evicted;
  }

  return {
    async cachedEmbedding(model, contentHash) {
      const row = await first(store, lookup({ at: now(), model, hash: contentHash }));
      if (row === undefined) {
        misses += 1;
        return undefined;
      }
      hits += 1;
      return codec.decode(row.vector);
    },
    async cacheEmbedding(model, contentHash, values) {
      await store.changes(upsert({ model, hash: contentHash, vector: codec.encode(values), at: now() }));
      estimatedEntries = (estimatedEntries ?? (await count())) + 1;
      if (estimatedEntries > maxEntries) await evictIfFull();
    },
    /** Hits, misses and evictions count from this process's start (per replica); `entries` is what the table holds. */
    async embeddingCacheStats() {
      const lookups = hits + misses;
      return { entries: await count(), hits, misses, evictions, hitRate: lookups === 0 ? 0 : hits / lookups };
    },
  };
}
