// Memory vectors on SQLite: one stored vector per entry, the registry of indexes (one per model and dimension), and the lane interface.
import { bestPlaces } from '../../../best-places.js';
import type { EmbeddingVector, MemoryFilter, MemoryStatus } from '../../index.js';
import type { SqliteDatabase } from '../database.js';
import { sketchBlob, sketchOf } from './sketch.js';

/** An entry's vector as stored: which index (model and dimension) it belongs to. */
export interface StoredVector {
  seq: number;
  indexId: number;
}

/** A vector lane: ranks the stored vectors of one index by cosine similarity, filters applied inside the query. */
export interface VectorLane {
  readonly kind: 'sketch' | 'exact';
  /** Called once the store is open, with the indexes it holds: prepares them in the background. */
  warm(indexes: readonly VectorIndex[]): void;
  /** Called once when an index is registered (outside any other transaction). */
  created(index: VectorIndex): void;
  /** Called after the entry's vector row (with its sketch) was written, inside the same transaction. */
  added(seq: number, indexId: number, sketch: Uint32Array, values: Float32Array): void;
  /** Called before the entries (or their vectors) are deleted, inside the same transaction. */
  removed(vectors: readonly StoredVector[]): void;
  /** Called before every entry is deleted, inside the same transaction. */
  cleared(index: VectorIndex): void;
  /** Called after the entries' status changed, inside the same transaction. */
  statusChanged(vectors: readonly StoredVector[], status: MemoryStatus): void;
  /** Called when a transaction that may have made the calls above rolled back: what they told is void. */
  rolledBack(): void;
  /** The id and scope of the entry with this seq when the lane holds them in memory; undefined: read them from the file. */
  knownEntry(seq: number): KnownEntry | undefined;
  /** Best first; `score` is the cosine similarity. */
  search(
    index: VectorIndex,
    values: Float32Array,
    filter: MemoryFilter,
    limit: number,
  ): { id: string; score: number }[];
}

/** What a lane holding an entry in memory knows of it: enough to name a search result and keep it to a scope. */
export interface KnownEntry {
  id: string;
  tenantId: string;
  agentId: string;
  ownerId: string | null;
}

export interface VectorIndex {
  id: number;
  model: string;
  dimensions: number;
}

export function vectorBlob(values: Float32Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

/** Cosine similarity; NaN when either vector is all zeros (it has no direction) or their lengths differ. */
export function cosineSimilarity(left: Float32Array, right: Float32Array): number {
  if (left.length !== right.length) return Number.NaN;
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
  return leftNorm === 0 || rightNorm === 0 ? Number.NaN : dot / Math.sqrt(leftNorm * rightNorm);
}

/**
 * The positions of the best `limit` of these seqs by their cosine scores (same order), best first (ties: the older
 * entry, its seq lower). A score that is not a number (an all-zero vector has no direction) is never a match.
 */
export function bestByScore(seqs: readonly number[], scores: Float64Array, limit: number): number[] {
  const isBetter = (left: number, right: number) => {
    const leftScore = scores[left] as number;
    const rightScore = scores[right] as number;
    return leftScore > rightScore || (leftScore === rightScore && (seqs[left] as number) < (seqs[right] as number));
  };
  return bestPlaces(seqs.length, limit, isBetter, (at) => Number.isFinite(scores[at]));
}

/** The blob's values: a view when the Buffer is 4-byte aligned (a blob read from SQLite has its own), else a copy. */
export function blobValues(blob: Buffer): Float32Array {
  const length = Math.floor(blob.byteLength / Float32Array.BYTES_PER_ELEMENT);
  if (blob.byteOffset % Float32Array.BYTES_PER_ELEMENT === 0)
    return new Float32Array(blob.buffer, blob.byteOffset, length);
  const values = new Float32Array(length);
  new Uint8Array(values.buffer).set(blob.subarray(0, values.byteLength));
  return values;
}

export interface VectorStore {
  /**
   * The index of this model and dimension; undefined when there is none. `ensure` creates it in a transaction of
   * its own: call it before the transaction that writes the vector, so a rollback there cannot leave a cached
   * index that the file does not have.
   */
  index(model: string, dimensions: number): VectorIndex | undefined;
  ensure(model: string, dimensions: number): VectorIndex;
  allIndexes(): VectorIndex[];
  /** Writes (or replaces) the entry's vector and its sketch, keeping the lane in step; call inside a transaction. */
  put(seq: number, vector: EmbeddingVector): void;
  /** The stored vectors of these entries (to hand to the lane before deleting them). */
  vectorsOf(seqs: readonly number[]): StoredVector[];
}

export function createVectorStore(db: SqliteDatabase, lane: () => VectorLane): VectorStore {
  const indexes = new Map<string, VectorIndex>();
  const selectIndexes = db.prepare<[], { id: number; model: string; dimensions: number }>(
    'SELECT id, model, dimensions FROM memory_vector_indexes',
  );
  const insertIndex = db.prepare<[string, number], { id: number }>(
    'INSERT INTO memory_vector_indexes (model, dimensions) VALUES (?, ?) RETURNING id',
  );
  const currentOf = db.prepare<[number], { index_id: number }>(
    'SELECT index_id FROM memory_vectors WHERE entry_seq = ?',
  );
  const upsert = db.prepare(
    `INSERT INTO memory_vectors (entry_seq, index_id, vector, sketch) VALUES (?, ?, ?, ?)
     ON CONFLICT (entry_seq) DO UPDATE SET index_id = excluded.index_id, vector = excluded.vector, sketch = excluded.sketch`,
  );
  const keyOf = (model: string, dimensions: number) => `${dimensions}:${model}`;
  for (const row of selectIndexes.all()) indexes.set(keyOf(row.model, row.dimensions), row);

  const create = db.transaction((model: string, dimensions: number): VectorIndex => {
    const row = insertIndex.get(model, dimensions);
    if (row === undefined) throw new Error('memory_vector_indexes insert returned no id');
    const created = { id: row.id, model, dimensions };
    lane().created(created);
    return created;
  });

  function ensure(model: string, dimensions: number): VectorIndex {
    const key = keyOf(model, dimensions);
    const known = indexes.get(key);
    if (known !== undefined) return known;
    const created = create.immediate(model, dimensions);
    indexes.set(key, created);
    return created;
  }

  return {
    index: (model, dimensions) => indexes.get(keyOf(model, dimensions)),
    ensure,
    allIndexes: () => [...indexes.values()],
    put(seq, vector) {
      const target = ensure(vector.model, vector.values.length);
      const current = currentOf.get(seq);
      if (current !== undefined) lane().removed([{ seq, indexId: current.index_id }]);
      const sketch = sketchOf(vector.values);
      upsert.run(seq, target.id, vectorBlob(vector.values), sketchBlob(sketch));
      lane().added(seq, target.id, sketch, vector.values);
    },
    vectorsOf(seqs) {
      if (seqs.length === 0) return [];
      const out: StoredVector[] = [];
      for (const seq of seqs) {
        const row = currentOf.get(seq);
        if (row !== undefined) out.push({ seq, indexId: row.index_id });
      }
      return out;
    },
  };
}
