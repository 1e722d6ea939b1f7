// Memory entries on SQLite: insert (with the observation's links and the vector in one transaction) and a vector set.
import { GatewayError } from '../../errors.js';
import type { EmbeddingVector, MemoryEntry, NewMemoryEntry } from '../index.js';
import type { SqliteDatabase } from './database.js';
import { insertedEntry, MEMORY_INSERT_COLUMNS, memoryInsertValues, type MemoryInsertValues } from '../shared/index.js';
import type { VectorStore } from './vector-sketch/index.js';

export interface MemoryEntries {
  insert(entry: NewMemoryEntry, vector?: EmbeddingVector): MemoryEntry;
  setVector(id: string, vector: EmbeddingVector): void;
}

function invalidDerivedFrom(message: string): GatewayError {
  return new GatewayError('invalid_params', message, { param: 'derivedFrom' });
}

export function createMemoryEntries(db: SqliteDatabase, vectors: VectorStore): MemoryEntries {
  const insertRow = db.prepare<MemoryInsertValues, { seq: number }>(
    `INSERT INTO memory_entries (${MEMORY_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
  );
  const sourceSeq = db
    .prepare<[string, string, string, string | null], number>(
      'SELECT seq FROM memory_entries WHERE id = ? AND +tenant_id = ? AND +agent_id = ? AND +owner_id IS ?',
    )
    .pluck();
  const insertLink = db.prepare('INSERT INTO memory_links (observation_seq, source_seq, position) VALUES (?, ?, ?)');
  const seqOf = db.prepare<[string], number>('SELECT seq FROM memory_entries WHERE id = ?').pluck();
  const insert = db.transaction((entry: NewMemoryEntry, vector: EmbeddingVector | undefined): MemoryEntry => {
    if (entry.memoryType !== 'observation' && entry.derivedFrom.length > 0) {
      throw invalidDerivedFrom('Only observations are derived from other entries');
    }
    const row = insertRow.get(...memoryInsertValues(entry));
    if (row === undefined) throw new Error('memory_entries insert returned no seq');
    const derivedFrom = [...new Set(entry.derivedFrom)];
    derivedFrom.forEach((sourceId, position) => {
      // A source of another tenant, agent or owner would let one scope's observation reveal another's entries.
      const source = sourceSeq.get(sourceId, entry.tenantId, entry.agentId, entry.ownerId ?? null);
      if (source === undefined)
        throw invalidDerivedFrom(`No entry '${sourceId}' of the same tenant, agent and owner to derive from`);
      insertLink.run(row.seq, source, position);
    });
    if (vector !== undefined) vectors.put(row.seq, vector);
    return insertedEntry(entry, derivedFrom);
  });

  return {
    insert(entry, vector) {
      if (vector !== undefined) vectors.ensure(vector.model, vector.values.length);
      return insert.immediate(entry, vector);
    },
    setVector(id, vector) {
      vectors.ensure(vector.model, vector.values.length);
      db.transaction(() => {
        const seq = seqOf.get(id);
        // The entry was deleted while it was being embedded: nothing to attach the vector to.
        if (seq !== undefined) vectors.put(seq, vector);
      }).immediate();
    },
  };
}
