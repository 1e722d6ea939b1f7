// The sqlite-vec lane: one vec0 table per index (model and dimension) whose metadata columns carry the scope, so the
// tenant, agent, type, trust and status filters run inside the KNN query rather than on a top-k afterwards.
import * as sqliteVec from 'sqlite-vec';
import type { MemoryFilter, MemoryStatus } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';
import { filterConditions } from './memory-rows.js';
import { vectorBlob, type StoredVector, type VectorIndex, type VectorLane } from './memory-vectors.js';
import { buildWhere } from './where.js';

/** vec0 answers at most this many neighbours per KNN query. */
export const VEC0_MAX_K = 4096;

const tableOf = (indexId: number) => `memory_vec_${indexId}`;

type Statement = ReturnType<typeof prepareAny>;

function prepareAny(db: SqliteDatabase, sql: string) {
  return db.prepare<unknown[], unknown>(sql);
}

/** Loads sqlite-vec into the connection; throws where the extension cannot load (no build for the platform). */
export function loadSqliteVec(db: SqliteDatabase): void {
  sqliteVec.load(db);
}

export function createVec0VectorLane(db: SqliteDatabase): VectorLane {
  const statements = new Map<string, Statement>();
  const prepared = (sql: string): Statement => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = prepareAny(db, sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const fill = (indexId: number, where: string) =>
    `INSERT INTO ${tableOf(indexId)} (rowid, embedding, tenant_id, agent_id, memory_type, trust_level, status)
     SELECT e.seq, v.vector, e.tenant_id, e.agent_id, e.memory_type, e.trust_level, e.status
     FROM memory_vectors v JOIN memory_entries e ON e.seq = v.entry_seq WHERE ${where}`;
  const searches = new Map<string, ReturnType<typeof db.prepare<unknown[], { id: string; distance: number | null }>>>();
  const markFresh = db.prepare('UPDATE memory_vector_indexes SET stale = 0 WHERE id = ?');

  function createTable(index: VectorIndex): void {
    db.exec(`DROP TABLE IF EXISTS ${tableOf(index.id)}`);
    // Cosine distance (1 - similarity); the metadata columns are the MemoryFilter's fields.
    db.exec(
      `CREATE VIRTUAL TABLE ${tableOf(index.id)} USING vec0 (embedding float[${index.dimensions}] distance_metric=cosine, ` +
        'tenant_id text, agent_id text, memory_type text, trust_level text, status text)',
    );
    markFresh.run(index.id);
  }

  // Indexes another connection changed without sqlite-vec (or whose table is missing) are rebuilt from the stored vectors.
  const rebuild = db.transaction((index: VectorIndex) => {
    createTable(index);
    db.prepare(fill(index.id, 'v.index_id = ?')).run(index.id);
  });
  const needingRebuild = db
    .prepare<[], VectorIndex>(
      `SELECT i.id, i.model, i.dimensions FROM memory_vector_indexes i
       WHERE i.stale = 1 OR NOT EXISTS (SELECT 1 FROM sqlite_master m WHERE m.name = 'memory_vec_' || i.id)`,
    )
    .all();
  for (const index of needingRebuild) rebuild.immediate(index);

  const forEachRow = (vectors: readonly StoredVector[], sql: (table: string) => string, ...leading: string[]) => {
    for (const { seq, indexId } of vectors) prepared(sql(tableOf(indexId))).run(...leading, BigInt(seq));
  };

  return {
    kind: 'vec0',
    created: createTable,
    added(seq, indexId) {
      prepared(fill(indexId, 'e.seq = ?')).run(seq);
    },
    removed(vectors) {
      forEachRow(vectors, (table) => `DELETE FROM ${table} WHERE rowid = ?`);
    },
    cleared(index) {
      prepared(`DELETE FROM ${tableOf(index.id)}`).run();
    },
    statusChanged(vectors: readonly StoredVector[], status: MemoryStatus) {
      forEachRow(vectors, (table) => `UPDATE ${table} SET status = ? WHERE rowid = ?`, status);
    },
    search(index: VectorIndex, values: Float32Array, filter: MemoryFilter, limit: number) {
      const where = buildWhere([...filterConditions(filter, ''), { sql: 'embedding MATCH ? AND k = ?', values: [] }]);
      const sql =
        `SELECT e.id, knn.distance FROM (SELECT rowid, distance FROM ${tableOf(index.id)} ${where.sql}) knn ` +
        'JOIN memory_entries e ON e.seq = knn.rowid ORDER BY knn.distance, e.seq';
      let statement = searches.get(sql);
      if (statement === undefined) {
        statement = db.prepare<unknown[], { id: string; distance: number | null }>(sql);
        searches.set(sql, statement);
      }
      const rows = statement.all(...where.values, vectorBlob(values), Math.min(limit, VEC0_MAX_K));
      // A stored all-zero vector has no direction: its distance is not a number, and it is never a match.
      return rows.flatMap((row) => (row.distance === null || Number.isNaN(row.distance) ? [] : [{ id: row.id, score: 1 - row.distance }]));
    },
  };
}
