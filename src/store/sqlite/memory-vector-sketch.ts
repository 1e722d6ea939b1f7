// The sketch vector lane: each index's 1,024-bit sketches are held in memory (read from the file in the background
// after the store opens, then kept in step by the writes), a search scans its scope's sketches for the closest
// candidates, and reranks them by exact cosine over their stored vectors in one query that applies the filters again.
import type { MemoryFilter, MemoryStatus } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';
import { filterConditions } from './memory-rows.js';
import type { SketchIndex } from './memory-sketch-index.js';
import { createSketchLoader } from './memory-sketch-loader.js';
import { sketchOf } from './memory-sketch.js';
import { blobValues, cosineSimilarity, type StoredVector, type VectorIndex, type VectorLane } from './memory-vectors.js';
import { buildWhere } from './where.js';

/**
 * Candidates reranked per search: at least this many, or RERANK_FACTOR times the results asked for. With 100k entries
 * of the topic corpus in one scope, 240 candidates for 60 results hold 0.96 of the exact top 60 and 0.997 of the exact
 * top 10 in 40 queries; a scope this small is ranked exactly.
 */
export const MIN_RERANK_CANDIDATES = 240;
export const RERANK_FACTOR = 4;

export function createSketchVectorLane(db: SqliteDatabase): VectorLane {
  const loader = createSketchLoader(db);
  const reranks = new Map<string, ReturnType<typeof db.prepare<unknown[], { id: string; seq: number; vector: Buffer }>>>();

  const forBegun = (vectors: readonly StoredVector[], change: (sketches: SketchIndex, seq: number) => void) => {
    for (const { seq, indexId } of vectors) {
      const sketches = loader.begun(indexId);
      if (sketches !== undefined) change(sketches, seq);
    }
  };

  function rerank(index: VectorIndex, values: Float32Array, filter: MemoryFilter, seqs: readonly number[]) {
    const where = buildWhere([['v.index_id', '=', index.id], ...filterConditions(filter)]);
    // CROSS JOIN keeps the candidates the outer loop: one primary-key lookup each, never a scan of the index's rows.
    const sql =
      'SELECT e.id, e.seq, v.vector FROM json_each(?) c CROSS JOIN memory_vectors v ON v.entry_seq = c.value ' +
      `CROSS JOIN memory_entries e ON e.seq = v.entry_seq ${where.sql}`;
    let statement = reranks.get(sql);
    if (statement === undefined) {
      statement = db.prepare<unknown[], { id: string; seq: number; vector: Buffer }>(sql);
      reranks.set(sql, statement);
    }
    return statement.all(JSON.stringify(seqs), ...where.values).map((row) => ({ id: row.id, seq: row.seq, score: cosineSimilarity(values, blobValues(row.vector)) }));
  }

  return {
    kind: 'sketch',
    warm(indexes) {
      loader.warm(indexes.map((index) => index.id));
    },
    created(index) {
      loader.created(index.id);
    },
    added(seq, indexId, sketch) {
      const sketches = loader.begun(indexId);
      const row = sketches === undefined ? undefined : loader.rowOf(seq, sketch);
      if (row !== undefined) sketches?.put(row);
    },
    removed(vectors) {
      forBegun(vectors, (sketches, seq) => sketches.remove(seq));
    },
    cleared(index) {
      if (loader.begun(index.id) !== undefined) loader.created(index.id);
    },
    statusChanged(vectors: readonly StoredVector[], status: MemoryStatus) {
      forBegun(vectors, (sketches, seq) => sketches.setStatus(seq, status));
    },
    rolledBack() {
      loader.forget();
    },
    search(index, values, filter, limit) {
      const candidates = loader.loaded(index.id).nearest(sketchOf(values), filter, Math.max(MIN_RERANK_CANDIDATES, limit * RERANK_FACTOR));
      if (candidates.length === 0) return [];
      // A stored all-zero vector has no direction (its cosine is not a number): it is never a match.
      const scored = rerank(index, values, filter, candidates).filter((hit) => Number.isFinite(hit.score));
      scored.sort((left, right) => right.score - left.score || left.seq - right.seq);
      return scored.slice(0, limit).map(({ id, score }) => ({ id, score }));
    },
  };
}
