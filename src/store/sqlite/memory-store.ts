// SQLite implementation of the MemoryPort: entries, the lexical and vector lanes, the lifecycle and the embedding cache.
import type { MemoryPort } from '../index.js';
import type { SqliteDatabase } from './database.js';
import { createMemoryDeletes } from './memory-deletes.js';
import { createMemoryEntries } from './memory-entries.js';
import { createLexicalLane } from './memory-lexical.js';
import { startLexicalCompaction } from './memory-lexical-compaction.js';
import type { ReaderThread } from './sql-reader.js';
import { createTermCounts } from './memory-term-counts.js';
import { createMemoryLifecycle } from './memory-lifecycle.js';
import {
  createEmbeddingCache,
  createMemoryReads,
  type EmbeddingCacheSettings,
  type SqlRunner,
  type VectorCodec,
} from '../shared/index.js';
import { sqliteStoreDb, statementCache } from './store-db.js';
import {
  blobValues,
  createExactVectorLane,
  createSketchVectorLane,
  createVectorStore,
  vectorBlob,
} from './vector-sketch/index.js';

export interface SqliteMemoryPortOptions extends EmbeddingCacheSettings {
  /** Rank vectors by exact cosine over every stored vector instead of sketches and a rerank (a reference for tests). */
  exactVectorSearch?: boolean;
}

export interface SqliteMemoryPort extends MemoryPort {
  /** Which vector lane ranks: in-memory sketches reranked by exact cosine, or exact cosine over every stored vector. */
  readonly vectorSearch: 'sketch' | 'exact';
}

/** Cached vectors are their f32 bytes, as the vector tables keep them. */
const BLOB_CODEC: VectorCodec = {
  encode: vectorBlob,
  decode: (stored) => (Buffer.isBuffer(stored) ? blobValues(stored) : new Float32Array()),
};

/** The memory reads' statements, kept apart from the shared ports' (a getMany of each length is a statement). */
function sqliteRunner(db: SqliteDatabase): SqlRunner {
  const prepare = statementCache(db);
  return {
    dialect: 'sqlite',
    all: async <R>(sql: string, values: readonly unknown[]) => prepare(sql).all(...values) as R[],
  };
}

/** With a reader thread, the lexical lane's query runs on it, alongside the vector lane here. */
export function createSqliteMemoryPort(
  db: SqliteDatabase,
  options: SqliteMemoryPortOptions = {},
  reader?: ReaderThread,
): SqliteMemoryPort {
  const lane = options.exactVectorSearch === true ? createExactVectorLane(db) : createSketchVectorLane(db);
  const vectors = createVectorStore(db, () => lane);
  lane.warm(vectors.allIndexes());
  const entries = createMemoryEntries(db, vectors);
  const deletes = createMemoryDeletes(db, vectors, lane);
  const lifecycle = createMemoryLifecycle(db, vectors, lane, deletes);
  const lexical = createLexicalLane(db, createTermCounts(db), (seq) => lane.knownEntry(seq), reader);
  startLexicalCompaction(db);
  const reads = createMemoryReads(sqliteRunner(db));
  const cache = createEmbeddingCache(sqliteStoreDb(db), BLOB_CODEC, options);
  /** The write as a port method: a write whose transaction failed may have told the lane of changes that did not happen. */
  const keepingLane =
    <A extends unknown[], R>(write: (...args: A) => R) =>
    async (...args: A): Promise<R> => {
      try {
        return write(...args);
      } catch (error) {
        lane.rolledBack();
        throw error;
      }
    };

  return {
    ...reads,
    ...cache,
    vectorSearch: lane.kind,
    insert: keepingLane(entries.insert),
    async searchLexical(query, filter, limit, signal) {
      signal?.throwIfAborted();
      return lexical(query, filter, limit);
    },
    async searchVector(vector, filter, limit, signal) {
      signal?.throwIfAborted();
      const index = vectors.index(vector.model, vector.values.length);
      if (index === undefined || limit <= 0) return [];
      return lane
        .search(index, vector.values, filter, limit)
        .map((hit, position) => ({ id: hit.id, rank: position + 1, score: hit.score }));
    },
    setVector: keepingLane(entries.setVector),
    markRecalled: keepingLane(lifecycle.markRecalled),
    demote: keepingLane((ids: readonly string[]) => lifecycle.demote(ids)),
    delete: keepingLane(deletes.delete),
    deleteBySource: (sessionKey, scope, { purgeDerived }) =>
      keepingLane(deletes.deleteBySource)(sessionKey, scope, purgeDerived),
    flush: keepingLane(deletes.flush),
    sweep: keepingLane(lifecycle.sweep),
  };
}
