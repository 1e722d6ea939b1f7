// Memory entries on SQLite: insert (with the observation's links and the vector in one transaction) and the reads.
import { GatewayError } from '../../errors.js';
import type { EmbeddingVector, MemoryEntry, MemoryFilter, MemoryScope, NewMemoryEntry } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';
import { chunks, createEntryReader, filterWhere, keyedFilterWhere } from './memory-rows.js';
import {
  inIdOrder,
  insertedEntry,
  MEMORY_COLUMNS,
  MEMORY_INSERT_COLUMNS,
  memoryInsertValues,
  type MemoryInsertValues,
  type MemoryRow,
} from '../shared/index.js';
import type { VectorStore } from './vector-sketch/index.js';

export interface MemoryEntries {
  insert(entry: NewMemoryEntry, vector?: EmbeddingVector): MemoryEntry;
  get(id: string, scope: MemoryScope): MemoryEntry | undefined;
  getMany(ids: readonly string[], scope: MemoryScope): MemoryEntry[];
  browse(filter: MemoryFilter, offset: number, limit: number): { entries: MemoryEntry[]; total: number };
  withoutVector(model: string, limit: number): Pick<MemoryEntry, 'id' | 'content'>[];
  setVector(id: string, vector: EmbeddingVector): void;
}

function invalidDerivedFrom(message: string): GatewayError {
  return new GatewayError('invalid_params', message, { param: 'derivedFrom' });
}

export function createMemoryEntries(db: SqliteDatabase, vectors: VectorStore): MemoryEntries {
  const read = createEntryReader(db);
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
  const withoutVectorRows = db.prepare<[string, number], { id: string; content: string }>(
    `SELECT e.id, e.content FROM memory_entries e
     WHERE NOT EXISTS (SELECT 1 FROM memory_vectors v JOIN memory_vector_indexes i ON i.id = v.index_id WHERE v.entry_seq = e.seq AND i.model = ?)
     ORDER BY e.created_at, e.seq LIMIT ?`,
  );
  const statements = new Map<string, ReturnType<typeof db.prepare<unknown[], MemoryRow>>>();
  const rowsOf = (sql: string, values: readonly unknown[]) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare<unknown[], MemoryRow>(sql);
      statements.set(sql, statement);
    }
    return statement.all(...values);
  };

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

  const getMany = (ids: readonly string[], scope: MemoryScope): MemoryEntry[] => {
    const found = chunks([...new Set(ids)]).flatMap((chunk) => {
      const where = keyedFilterWhere((params) => params.anyOf('e.id', chunk), scope);
      return read(rowsOf(`SELECT ${MEMORY_COLUMNS} FROM memory_entries e ${where.sql}`, where.values));
    });
    return inIdOrder(ids, found);
  };

  return {
    insert(entry, vector) {
      if (vector !== undefined) vectors.ensure(vector.model, vector.values.length);
      return insert.immediate(entry, vector);
    },
    get: (id, scope) => getMany([id], scope)[0],
    getMany,
    browse(filter, offset, limit) {
      const where = filterWhere(filter);
      const total =
        db
          .prepare<unknown[], number>(`SELECT COUNT(*) FROM memory_entries e ${where.sql}`)
          .pluck()
          .get(...where.values) ?? 0;
      const rows = rowsOf(
        `SELECT ${MEMORY_COLUMNS} FROM memory_entries e ${where.sql} ORDER BY e.created_at DESC, e.seq DESC LIMIT ? OFFSET ?`,
        [...where.values, limit, offset],
      );
      return { entries: read(rows), total };
    },
    withoutVector: (model, limit) => withoutVectorRows.all(model, limit),
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
