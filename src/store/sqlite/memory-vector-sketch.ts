// The sketch vector lane: each index's 1,024-bit sketches are held in memory (read from the file at its first search,
// then kept in step by the writes), a search scans its scope's sketches for the closest candidates, and reranks them
// by exact cosine over their stored vectors in one query that applies the scope filters again.
import type { MemoryFilter, MemoryStatus } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';
import { filterConditions } from './memory-rows.js';
import { createSketchIndex, type SketchIndex } from './memory-sketch-index.js';
import { blobSketch, sketchBlob, sketchOf } from './memory-sketch.js';
import { blobValues, cosineSimilarity, type StoredVector, type VectorIndex, type VectorLane } from './memory-vectors.js';
import { buildWhere } from './where.js';

/**
 * Candidates reranked per search: at least this many, or RERANK_FACTOR times the results asked for. With 100k entries
 * of the topic corpus in one scope, 240 candidates for 60 results hold 0.96 of the exact top 60 and 0.997 of the exact
 * top 10 in 40 queries; a scope this small is ranked exactly.
 */
export const MIN_RERANK_CANDIDATES = 240;
export const RERANK_FACTOR = 4;

interface EntryRow {
  seq: number;
  sketch: unknown;
  tenant_id: string;
  agent_id: string;
  memory_type: string;
  trust_level: string;
  status: string;
}

const ENTRY_COLUMNS = 'v.entry_seq AS seq, v.sketch, e.tenant_id, e.agent_id, e.memory_type, e.trust_level, e.status';

export function createSketchVectorLane(db: SqliteDatabase): VectorLane {
  const loaded = new Map<number, SketchIndex>();
  const rowsOfIndex = db.prepare<[number], EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM memory_vectors v JOIN memory_entries e ON e.seq = v.entry_seq WHERE v.index_id = ?`,
  );
  const rowOfEntry = db.prepare<[number], EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM memory_vectors v JOIN memory_entries e ON e.seq = v.entry_seq WHERE v.entry_seq = ?`,
  );
  const vectorOf = db.prepare<[number], Buffer>('SELECT vector FROM memory_vectors WHERE entry_seq = ?').pluck();
  const storeSketch = db.prepare<[Buffer, number]>('UPDATE memory_vectors SET sketch = ? WHERE entry_seq = ?');
  const reranks = new Map<string, ReturnType<typeof db.prepare<unknown[], { id: string; seq: number; vector: Buffer }>>>();

  const rowFor = (row: EntryRow, sketch: Uint32Array) => ({
    seq: row.seq,
    tenantId: row.tenant_id,
    agentId: row.agent_id,
    memoryType: row.memory_type,
    trustLevel: row.trust_level,
    status: row.status,
    sketch,
  });

  // Vectors stored before sketches existed are sketched once, here, and the sketch kept.
  const load = db.transaction((indexId: number): SketchIndex => {
    const sketches = createSketchIndex();
    for (const row of rowsOfIndex.all(indexId)) {
      let sketch = blobSketch(row.sketch);
      if (sketch === undefined) {
        const vector = vectorOf.get(row.seq);
        if (vector === undefined) continue;
        sketch = sketchOf(blobValues(vector));
        storeSketch.run(sketchBlob(sketch), row.seq);
      }
      sketches.put(rowFor(row, sketch));
    }
    return sketches;
  });

  function sketchesOf(indexId: number): SketchIndex {
    let sketches = loaded.get(indexId);
    if (sketches === undefined) {
      sketches = load.immediate(indexId);
      loaded.set(indexId, sketches);
    }
    return sketches;
  }

  const forLoaded = (vectors: readonly StoredVector[], change: (sketches: SketchIndex, seq: number) => void) => {
    for (const { seq, indexId } of vectors) {
      const sketches = loaded.get(indexId);
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
    created(index) {
      loaded.set(index.id, createSketchIndex());
    },
    added(seq, indexId, sketch) {
      const sketches = loaded.get(indexId);
      const row = sketches === undefined ? undefined : rowOfEntry.get(seq);
      if (sketches !== undefined && row !== undefined) sketches.put(rowFor(row, sketch));
    },
    removed(vectors) {
      forLoaded(vectors, (sketches, seq) => sketches.remove(seq));
    },
    cleared(index) {
      if (loaded.has(index.id)) loaded.set(index.id, createSketchIndex());
    },
    statusChanged(vectors: readonly StoredVector[], status: MemoryStatus) {
      forLoaded(vectors, (sketches, seq) => sketches.setStatus(seq, status));
    },
    rolledBack() {
      loaded.clear();
    },
    search(index, values, filter, limit) {
      const candidates = sketchesOf(index.id).nearest(sketchOf(values), filter, Math.max(MIN_RERANK_CANDIDATES, limit * RERANK_FACTOR));
      if (candidates.length === 0) return [];
      // A stored all-zero vector has no direction (its cosine is not a number): it is never a match.
      const scored = rerank(index, values, filter, candidates).filter((hit) => Number.isFinite(hit.score));
      scored.sort((left, right) => right.score - left.score || left.seq - right.seq);
      return scored.slice(0, limit).map(({ id, score }) => ({ id, score }));
    },
  };
}
