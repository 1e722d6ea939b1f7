// PostgreSQL implementation of the MemoryPort: entries, the lexical and vector lanes, the lifecycle and the embedding cache.
import type { MemoryPort } from '../index.js';
import { createMemoryDeletes } from './memory-deletes.js';
import { createMemoryEntries } from './memory-entries.js';
import { createMemoryLifecycle } from './memory-lifecycle.js';
import { searchLexical, searchVector } from './memory-search.js';
import type { PgPool } from './pool.js';
import {
  createEmbeddingCache,
  createMemoryReads,
  type EmbeddingCacheSettings,
  type VectorCodec,
} from '../shared/index.js';
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
  const reads = createMemoryReads({
    dialect: 'postgres',
    all: async <R>(sql: string, values: readonly unknown[]) => (await pool.query(sql, [...values])).rows as R[],
  });
  const deletes = createMemoryDeletes(pool);
  const lifecycle = createMemoryLifecycle(pool);
  const cache = createEmbeddingCache(postgresStoreDb(pool), ARRAY_CODEC, options);

  return {
    ...reads,
    ...cache,
    vectorSearch: 'exact',
    insert: (entry, vector) => entries.insert(entry, vector),
    async searchLexical(query, filter, limit, signal) {
      signal?.throwIfAborted();
      return searchLexical(pool, query, filter, limit);
    },
    async searchVector(vector, filter, limit, signal) {
      signal?.throwIfAborted();
      return searchVector(pool, vector, filter, limit);
    },
    setVector: (id, vector) => entries.setVector(id, vector),
    markRecalled: (ids, at) => lifecycle.markRecalled(ids, at),
    demote: (ids) => lifecycle.demote(ids),
    delete: (id, scope) => deletes.delete(id, scope),
    deleteBySource: (sessionKey, scope, { purgeDerived }) => deletes.deleteBySource(sessionKey, scope, purgeDerived),
    flush: (scope) => deletes.flush(scope),
    sweep: (agentId, policy, at) => lifecycle.sweep(agentId, policy, at),
  };
}
