// The PostgreSQL RetentionPort: deletes the oldest evidence a bounded batch per statement and reports the database's
// size and each evidence table's rows, bytes and oldest time.
import type { EvidenceTable, EvidenceTableSize, RetentionPort } from '../ports/retention.js';
import { EVIDENCE_TABLES, EXACT_COUNT_MAX_ROWS } from '../ports/retention.js';
import { EVIDENCE_TIME_COLUMNS } from '../shared/index.js';
import type { Queryable } from './pool.js';

/** Each table's key: the column its oldest rows are deleted by. */
const keyOf = (table: EvidenceTable): string => (table === 'session_index' ? 'trace_id' : 'id');

interface TableRow {
  counted: number;
  estimate: number;
  bytes: number;
  oldest: number | null;
}

export function createPostgresRetentionPort(db: Queryable): RetentionPort {
  async function tableSize(table: EvidenceTable): Promise<EvidenceTableSize> {
    // Counting stops one row past the limit; a larger table reports the planner's estimate (reltuples) instead.
    const result = await db.query<TableRow>(
      `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM ${table} LIMIT ${EXACT_COUNT_MAX_ROWS + 1}) AS head) AS counted,
         c.reltuples::float8 AS estimate, pg_total_relation_size(c.oid) AS bytes, (SELECT MIN(${EVIDENCE_TIME_COLUMNS[table]}) FROM ${table}) AS oldest
       FROM pg_class c WHERE c.oid = to_regclass($1)`,
      [table],
    );
    const row = result.rows[0] ?? { counted: 0, estimate: 0, bytes: 0, oldest: null };
    const isExact = row.counted <= EXACT_COUNT_MAX_ROWS;
    return {
      table,
      rows: isExact ? row.counted : Math.max(Math.round(row.estimate), row.counted),
      rowsExact: isExact,
      oldestMs: row.oldest,
      bytes: row.bytes,
    };
  }

  return {
    async deleteBefore(table, beforeMs, limit) {
      const [key, time] = [keyOf(table), EVIDENCE_TIME_COLUMNS[table]];
      const result = await db.query(
        `DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE ${time} < $1 ORDER BY ${time} LIMIT $2)`,
        [beforeMs, limit],
      );
      return result.rowCount ?? 0;
    },
    async size(signal) {
      signal?.throwIfAborted();
      const database = await db.query<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes');
      const tables: EvidenceTableSize[] = [];
      for (const table of EVIDENCE_TABLES) {
        signal?.throwIfAborted();
        tables.push(await tableSize(table));
      }
      return { backend: 'postgres', databaseBytes: database.rows[0]?.bytes ?? 0, freeBytes: null, tables };
    },
  };
}
