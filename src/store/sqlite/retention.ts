// The SQLite RetentionPort: deletes the oldest evidence in short transactions (on the writer thread when the store has
// one, between the evidence batches it writes) and reports the file's size and each evidence table's rows.
import {
  EVIDENCE_TABLES,
  EXACT_COUNT_MAX_ROWS,
  type EvidenceTable,
  type EvidenceTableSize,
  type RetentionPort,
} from '../ports/retention.js';
import { EVIDENCE_TIME_COLUMNS as TIME_COLUMNS } from '../shared/index.js';
import type { SqliteDatabase } from './database.js';
import { createInThreadWriter, type WriterThread } from './sql-writer.js';

/** One statement per table, in EVIDENCE_TABLES order: the oldest `limit` rows before the cut-off, found through the time index. */
const DELETES = EVIDENCE_TABLES.map((table) => {
  const time = TIME_COLUMNS[table];
  return `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${time} < ? ORDER BY ${time} LIMIT ?)`;
});

interface Ends {
  low: number | null;
  high: number | null;
  oldest: number | null;
}

/** Reads run on `db`; deletes go through `writers` when given (the store's writer thread), else on `db` itself. */
export function createSqliteRetentionPort(db: SqliteDatabase, writers?: WriterThread): RetentionPort {
  const writer = writers?.writer(DELETES) ?? createInThreadWriter(db, DELETES);
  // Each MIN and MAX is a subquery of its own, so each reads one end of an index rather than the whole table.
  const ends = EVIDENCE_TABLES.map((table) =>
    db.prepare<[], Ends>(
      `SELECT (SELECT MIN(rowid) FROM ${table}) AS low, (SELECT MAX(rowid) FROM ${table}) AS high, (SELECT MIN(${TIME_COLUMNS[table]}) FROM ${table}) AS oldest`,
    ),
  );
  // Counting stops one row past the limit, so a table of any size costs at most that many index entries.
  const counts = EVIDENCE_TABLES.map((table) =>
    db.prepare<[], number>(`SELECT COUNT(*) FROM (SELECT 1 FROM ${table} LIMIT ${EXACT_COUNT_MAX_ROWS + 1})`).pluck(),
  );
  const pragma = (name: 'page_count' | 'page_size' | 'freelist_count'): number =>
    db.prepare<[], number>(`PRAGMA ${name}`).pluck().get() ?? 0;

  function tableSize(index: number, table: EvidenceTable): EvidenceTableSize {
    const { low, high, oldest } = ends[index]?.get() ?? { low: null, high: null, oldest: null };
    const counted = counts[index]?.get() ?? 0;
    if (counted <= EXACT_COUNT_MAX_ROWS || low === null || high === null)
      return { table, rows: counted, rowsExact: true, oldestMs: oldest, bytes: null };
    // Rows are appended with growing rowids and deleted oldest first, so the span of rowids is close to the count.
    return { table, rows: Math.max(high - low + 1, counted), rowsExact: false, oldestMs: oldest, bytes: null };
  }

  return {
    deleteBefore(table, beforeMs, limit) {
      return writer.run([[EVIDENCE_TABLES.indexOf(table), beforeMs, limit]]);
    },
    async size(signal) {
      signal?.throwIfAborted();
      const pageSize = pragma('page_size');
      return {
        backend: 'sqlite',
        databaseBytes: pragma('page_count') * pageSize,
        freeBytes: pragma('freelist_count') * pageSize,
        tables: EVIDENCE_TABLES.map((table, index) => tableSize(index, table)),
      };
    },
  };
}
