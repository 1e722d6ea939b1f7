// PostgreSQL implementation of the MemoryPort: entries, the lexical and vector lanes, the lifecycle and the embedding cache.
import type { MemoryPort } from '../ports/index.js';
import { createMemoryDeletes } from './memory-deletes.js';
import { createMemoryEntries } from './memory-entries.js';
import { createMemoryLifecycle } from './memory-lifecycle.js';
import { searchLexical, searchVector } from './memory-search.js';
import { hasEntries, memoryStats } from './memory-stats.js';
import type { PgPool } from './pool.js';
import { createEmbeddingCache, type EmbeddingCacheSettings, type VectorCodec } from '../shared/index.js';
import { postgresStoreDb } from './store-db.js';

/** Cached vectors are REAL[], read back as numbers. */
const ARRAY_CODEC: VectorCodec = {
  encode: (values) => Array.from(values),
  decode: (stored) => Float32Array.from(Array.isArray(stored) ? stored : []),
};

export type PostgresMemoryPortOptions = EmbeddingCacheSettings;

export interface PostgresMemoryPort extends MemoryPort {
  /** How the vector lane ranks: exact cosine over the stored real[] vectors. */
  readonly vectorSearch: 'exact';
}

export function createPostgresMemoryPort(pool: PgPool, options: PostgresMemoryPortOptions = {}): PostgresMemoryPort {
  const entries = createMemoryEntries(pool);
  const deletes = createMemoryDeletes(pool);
  const lifecycle = createMemoryLifecycle(pool);
  const cache = createEmbeddingCache(postgresStoreDb(pool), ARRAY_CODEC, options);

  return {
    vectorSearch: 'exact',
    insert: (entry, vector) => entries.insert(entry, vector),
    get: (id, scope) => entries.get(id, scope),
    getMany: (ids, scope) => entries.getMany(ids, scope),
    async searchLexical(query, filter, limit, signal) {
      signal?.throwIfAborted();
      return searchLexical(pool, query, filter, limit);
    },
    async searchVector(vector, filter, limit, signal) {
      signal?.throwIfAborted();
      return searchVector(pool, vector, filter, limit);
    },
    withoutVector: (model, limit) => entries.withoutVector(model, limit),
    setVector: (id, vector) => entries.setVector(id, vector),
    markRecalled: (ids, at) => lifecycle.markRecalled(ids, at),
    browse: (filter, page) => entries.browse(filter, page.offset, page.limit),
    delete: (id, scope) => deletes.delete(id, scope),
    deleteBySource: (sessionKey, scope, { purgeDerived }) => deletes.deleteBySource(sessionKey, scope, purgeDerived),
    flush: (scope) => deletes.flush(scope),
    stats: (scope) => memoryStats(pool, scope),
    hasEntries: (scope) => hasEntries(pool, scope),
    agentsWithEntries: () => lifecycle.agentsWithEntries(),
    sweep: (agentId, policy, at) => lifecycle.sweep(agentId, policy, at),
    cachedEmbedding: (model, contentHash) => cache.get(model, contentHash),
    cacheEmbedding: (model, contentHash, values) => cache.put(model, contentHash, values),
    embeddingCacheStats: () => cache.stats(),
  };
}
