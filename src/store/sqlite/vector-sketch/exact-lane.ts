// The exact vector lane: cosine similarity over every stored vector of one index, computed by a SQL function, so the
// scope filters, the ordering and the limit all stay in one query. The reference the sketch lane is measured against.
import type { MemoryFilter } from '../../index.js';
import type { SqliteDatabase } from '../database.js';
import { filterWhere } from '../memory-rows.js';
import { blobValues, cosineSimilarity, vectorBlob, type VectorIndex, type VectorLane } from './vectors.js';

const COSINE_FUNCTION = 'memory_cosine';

function isBuffer(value: unknown): value is Buffer {
  return Buffer.isBuffer(value);
}

export function createExactVectorLane(db: SqliteDatabase): VectorLane {
  // NULL for a vector with no direction, which is never a match.
  db.function(COSINE_FUNCTION, { deterministic: true }, (left: unknown, right: unknown) => {
    const score =
      isBuffer(left) && isBuffer(right) ? cosineSimilarity(blobValues(left), blobValues(right)) : Number.NaN;
    return Number.isNaN(score) ? null : score;
  });
  const statements = new Map<string, ReturnType<typeof db.prepare<unknown[], { id: string; score: number }>>>();

  return {
    kind: 'exact',
    warm() {},
    created() {},
    added() {},
    removed() {},
    cleared() {},
    statusChanged() {},
    rolledBack() {},
    knownEntry: () => undefined,
    search(index: VectorIndex, values: Float32Array, filter: MemoryFilter, limit: number) {
      const where = filterWhere(filter, [['v.index_id', '=', index.id]]);
      const sql =
        `SELECT id, score FROM (SELECT e.id, e.seq, ${COSINE_FUNCTION}(v.vector, ?) AS score FROM memory_vectors v ` +
        `JOIN memory_entries e ON e.seq = v.entry_seq ${where.sql}) WHERE score IS NOT NULL ORDER BY score DESC, seq LIMIT ?`;
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare<unknown[], { id: string; score: number }>(sql);
        statements.set(sql, statement);
      }
      return statement.all(vectorBlob(values), ...where.values, limit);
    },
  };
}
