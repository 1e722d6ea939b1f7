// The exact vector lane: cosine similarity over every stored vector of one index, computed by a SQL function, so the
// scope filters, the ordering and the limit all stay in one query. Used where sqlite-vec cannot load (or is turned off).
import type { MemoryFilter } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';
import { filterWhere } from './memory-rows.js';
import { blobValues, vectorBlob, type VectorIndex, type VectorLane } from './memory-vectors.js';

const COSINE_FUNCTION = 'memory_cosine';

/** Cosine similarity of two stored vectors; 0 when either is all zeros or their lengths differ. */
function cosine(left: Float32Array, right: Float32Array): number {
  if (left.length !== right.length) return 0;
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let index = 0; index < left.length; index += 1) {
    const a = left[index] ?? 0;
    const b = right[index] ?? 0;
    dot += a * b;
    leftNorm += a * a;
    rightNorm += b * b;
  }
  return leftNorm === 0 || rightNorm === 0 ? 0 : dot / Math.sqrt(leftNorm * rightNorm);
}

function isBuffer(value: unknown): value is Buffer {
  return Buffer.isBuffer(value);
}

export function createExactVectorLane(db: SqliteDatabase): VectorLane {
  db.function(COSINE_FUNCTION, { deterministic: true }, (left: unknown, right: unknown) =>
    isBuffer(left) && isBuffer(right) ? cosine(blobValues(left), blobValues(right)) : 0,
  );
  // Vectors written while sqlite-vec is not loaded are missing from its indexes: a connection that loads it rebuilds them.
  db.prepare('UPDATE memory_vector_indexes SET stale = 1 WHERE stale = 0').run();
  const statements = new Map<string, ReturnType<typeof db.prepare<unknown[], { id: string; score: number }>>>();

  return {
    kind: 'exact',
    created() {},
    added() {},
    removed() {},
    cleared() {},
    statusChanged() {},
    search(index: VectorIndex, values: Float32Array, filter: MemoryFilter, limit: number) {
      const where = filterWhere(filter, [['v.index_id', '=', index.id]]);
      const sql =
        `SELECT e.id, ${COSINE_FUNCTION}(v.vector, ?) AS score FROM memory_vectors v JOIN memory_entries e ON e.seq = v.entry_seq ` +
        `${where.sql} ORDER BY score DESC, e.seq LIMIT ?`;
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare<unknown[], { id: string; score: number }>(sql);
        statements.set(sql, statement);
      }
      return statement.all(vectorBlob(values), ...where.values, limit);
    },
  };
}
