// Reads each vector index's sketches (and, for vectors of few dimensions, their 8-bit codes) from the file into memory in
// steps of a few thousand rows: in the background after the store opens (so the first search after a start does not
// wait), or at once for a search that comes first.
import type { SqliteDatabase } from '../database.js';
import { createSketchIndex, type SketchIndex, type SketchRow } from './sketch-index.js';
import { blobSketch, sketchBlob, sketchOf } from './sketch.js';
import { codeBytesFor, vectorCode } from './vector-code.js';
import { blobValues, type KnownEntry, type VectorIndex } from './vectors.js';

/** Rows read per step: a step holds the event loop for a few milliseconds. */
const STEP_ROWS = 2_000;

interface EntryRow {
  seq: number;
  id: string;
  sketch: unknown;
  /** Read only for an index that keeps codes. */
  vector: Buffer | null;
  tenant_id: string;
  agent_id: string;
  owner_id: string | null;
  memory_type: string;
  trust_level: string;
  status: string;
}

interface Load {
  sketches: SketchIndex;
  /** Rows up to this seq have been read. */
  afterSeq: number;
  complete: boolean;
}

export interface SketchLoader {
  /** The index's sketches, every row read (finishing a load under way). */
  loaded(index: VectorIndex): SketchIndex;
  /** The index's sketches as read so far, or undefined when no load began: writes keep these in step. */
  begun(indexId: number): SketchIndex | undefined;
  /** The row of one entry as the index keeps it (its code made from `values`); undefined when the entry has no vector. */
  rowOf(seq: number, sketch: Uint32Array, values: Float32Array, codeBytes: number): SketchRow | undefined;
  /** A new index: nothing to read. */
  created(index: VectorIndex): void;
  /** Starts reading these indexes in the background, one step per turn of the event loop. */
  warm(indexes: readonly VectorIndex[]): void;
  /** Forgets everything read (read again when next needed). */
  forget(): void;
  /** The id and scope of the entry with this seq, from the rows read so far of any index. */
  entryOf(seq: number): KnownEntry | undefined;
}

const COLUMNS =
  'v.entry_seq AS seq, e.id, v.sketch, e.tenant_id, e.agent_id, e.owner_id, e.memory_type, e.trust_level, e.status';

const toRow = (row: Omit<EntryRow, 'vector'>, sketch: Uint32Array, code: Int8Array | undefined): SketchRow => ({
  seq: row.seq,
  id: row.id,
  tenantId: row.tenant_id,
  agentId: row.agent_id,
  ownerId: row.owner_id,
  memoryType: row.memory_type,
  trustLevel: row.trust_level,
  status: row.status,
  sketch,
  vectorCode: code,
});

export function createSketchLoader(db: SqliteDatabase): SketchLoader {
  const loads = new Map<number, Load>();
  // The vectors are read only where the index keeps their codes (the first parameter is 1).
  const rowsAfter = db.prepare<[number, number, number, number], EntryRow>(
    `SELECT ${COLUMNS}, CASE WHEN ? THEN v.vector END AS vector FROM memory_vectors v JOIN memory_entries e ON e.seq = v.entry_seq
     WHERE v.index_id = ? AND v.entry_seq > ? ORDER BY v.entry_seq LIMIT ?`,
  );
  const rowOfEntry = db.prepare<[number], Omit<EntryRow, 'vector'>>(
    `SELECT ${COLUMNS} FROM memory_vectors v JOIN memory_entries e ON e.seq = v.entry_seq WHERE v.entry_seq = ?`,
  );
  const vectorOf = db.prepare<[number], Buffer>('SELECT vector FROM memory_vectors WHERE entry_seq = ?').pluck();
  const storeSketch = db.prepare<[Buffer, number]>('UPDATE memory_vectors SET sketch = ? WHERE entry_seq = ?');

  // Vectors stored before sketches existed are sketched once, here, and the sketch kept. A row written or deleted
  // between steps is read (or not) by a later step, and the writes themselves update what earlier steps read.
  const step = db.transaction((load: Load, indexId: number) => {
    const { codeBytes } = load.sketches;
    const rows = rowsAfter.all(codeBytes > 0 ? 1 : 0, indexId, load.afterSeq, STEP_ROWS);
    for (const row of rows) {
      load.afterSeq = row.seq;
      const vector = codeBytes > 0 ? row.vector : null;
      let sketch = blobSketch(row.sketch);
      if (sketch === undefined) {
        const stored = vector ?? vectorOf.get(row.seq);
        if (stored === undefined) continue;
        sketch = sketchOf(blobValues(stored));
        storeSketch.run(sketchBlob(sketch), row.seq);
      }
      load.sketches.put(toRow(row, sketch, vector === null ? undefined : vectorCode(blobValues(vector), codeBytes)));
    }
    if (rows.length < STEP_ROWS) load.complete = true;
  });

  const emptyLoad = (index: VectorIndex, complete: boolean): Load => ({
    sketches: createSketchIndex({ codeBytes: codeBytesFor(index.dimensions) }),
    afterSeq: 0,
    complete,
  });

  const loadOf = (index: VectorIndex): Load => {
    let load = loads.get(index.id);
    if (load === undefined) {
      load = emptyLoad(index, false);
      loads.set(index.id, load);
    }
    return load;
  };

  return {
    loaded(index) {
      const load = loadOf(index);
      while (!load.complete) step.immediate(load, index.id);
      return load.sketches;
    },
    begun: (indexId) => loads.get(indexId)?.sketches,
    rowOf(seq, sketch, values, codeBytes) {
      const row = rowOfEntry.get(seq);
      return row === undefined
        ? undefined
        : toRow(row, sketch, codeBytes > 0 ? vectorCode(values, codeBytes) : undefined);
    },
    created(index) {
      loads.set(index.id, emptyLoad(index, true));
    },
    warm(indexes) {
      for (const index of indexes) {
        const load = loadOf(index);
        // Unreferenced: a command that opens the store and exits does not wait for the load.
        const next = () => {
          if (!db.open || load.complete || loads.get(index.id) !== load) return;
          try {
            step.immediate(load, index.id);
          } catch {
            // Left for the first search of the index, which reads the rest at once and answers with the error.
            return;
          }
          setImmediate(next).unref();
        };
        setImmediate(next).unref();
      }
    },
    forget() {
      loads.clear();
    },
    entryOf(seq) {
      for (const { sketches } of loads.values()) {
        const entry = sketches.entryOf(seq);
        if (entry !== undefined) return entry;
      }
      return undefined;
    },
  };
}
