// The sketch vector lane: each index's 1,024-bit sketches are held in memory (read from the file in the background
// after the store opens, then kept in step by the writes), a search scans its scope's sketches for the closest
// candidates and reranks them: by the cosine of their 8-bit codes, held in memory beside the sketches, for vectors of
// up to 512 dimensions; else by exact cosine over their stored vectors. The entries' ids are held beside their sketches,
// so the results are named without reading the file.
import type { MemoryStatus } from '../../index.js';
import type { SqliteDatabase } from '../database.js';
import type { SketchIndex } from './sketch-index.js';
import { createSketchLoader } from './sketch-loader.js';
import { sketchOf } from './sketch.js';
import { createCosineScorer } from './cosine-scorer.js';
import { vectorCode } from './vector-code.js';
import { bestByScore, blobValues, type StoredVector, type VectorIndex, type VectorLane } from './vectors.js';

/**
 * Candidates reranked per search: at least this many, or RERANK_FACTOR times the results asked for. With 100k entries
 * of the topic corpus in one scope, 240 candidates for 60 results hold 0.96 of the exact top 60 and 0.997 of the exact
 * top 10 in 40 queries (reranked by their codes: 0.95 and 0.987, each score within 0.005 of the exact cosine).
 */
export const MIN_RERANK_CANDIDATES = 240;
export const RERANK_FACTOR = 4;

export function createSketchVectorLane(db: SqliteDatabase): VectorLane {
  const loader = createSketchLoader(db);
  const cosineScores = createCosineScorer();

  const forBegun = (vectors: readonly StoredVector[], change: (sketches: SketchIndex, seq: number) => void) => {
    for (const { seq, indexId } of vectors) {
      const sketches = loader.begun(indexId);
      if (sketches !== undefined) change(sketches, seq);
    }
  };

  // CROSS JOIN keeps the candidates the outer loop: one primary-key lookup each, never a scan of the index's rows. The
  // vectors come back end to end in one blob (group_concat joins a UTF-8 file's blobs byte for byte), in the order of
  // the seqs: one buffer for all, where a row each would allocate one per vector.
  const candidateVectors = db.prepare<[string, number], { seqs: string | null; vectors: Buffer | null }>(
    "SELECT group_concat(v.entry_seq) AS seqs, CAST(group_concat(v.vector, '') AS BLOB) AS vectors " +
      'FROM json_each(?) c CROSS JOIN memory_vectors v ON v.entry_seq = c.value WHERE v.index_id = ?',
  );

  /** The best `limit` candidates by exact cosine, best first (ties: the older entry). */
  function rerank(index: VectorIndex, values: Float32Array, candidates: readonly number[], limit: number) {
    const found = candidateVectors.get(JSON.stringify(candidates), index.id);
    if (found?.seqs == null || found.vectors === null) return [];
    const seqs = found.seqs.split(',').map(Number);
    const all = blobValues(found.vectors);
    if (all.length !== seqs.length * values.length)
      throw new Error(`vector index ${index.id} holds vectors of another length than ${values.length}`);
    const scores = cosineScores(values, all);
    return bestByScore(seqs, scores, limit).map((at) => ({ seq: seqs[at] as number, score: scores[at] as number }));
  }

  /** The exact rerank's results, named from the sketches' rows. */
  function withIds(sketches: SketchIndex, hits: readonly { seq: number; score: number }[]) {
    return hits.flatMap(({ seq, score }) => {
      const entry = sketches.entryOf(seq);
      return entry === undefined ? [] : [{ id: entry.id, score }];
    });
  }

  return {
    kind: 'sketch',
    warm(indexes) {
      loader.warm(indexes);
    },
    created(index) {
      loader.created(index);
    },
    added(seq, indexId, sketch, values) {
      const sketches = loader.begun(indexId);
      const row = sketches === undefined ? undefined : loader.rowOf(seq, sketch, values, sketches.codeBytes);
      if (row !== undefined) sketches?.put(row);
    },
    removed(vectors) {
      forBegun(vectors, (sketches, seq) => sketches.remove(seq));
    },
    cleared(index) {
      if (loader.begun(index.id) !== undefined) loader.created(index);
    },
    statusChanged(vectors: readonly StoredVector[], status: MemoryStatus) {
      forBegun(vectors, (sketches, seq) => sketches.setStatus(seq, status));
    },
    rolledBack() {
      loader.forget();
    },
    knownEntry: (seq) => loader.entryOf(seq),
    search(index, values, filter, limit) {
      const sketches = loader.loaded(index);
      const count = Math.max(MIN_RERANK_CANDIDATES, limit * RERANK_FACTOR);
      if (sketches.codeBytes > 0) {
        return sketches.ranked(sketchOf(values), vectorCode(values, sketches.codeBytes), filter, count, limit);
      }
      const candidates = sketches.nearest(sketchOf(values), filter, count);
      return candidates.length === 0 ? [] : withIds(sketches, rerank(index, values, candidates, limit));
    },
  };
}
