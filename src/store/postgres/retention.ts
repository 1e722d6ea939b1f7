// The PostgreSQL RetentionPort: deletes the oldest evidence a bounded batch per statement and reports the database's
// size and each evidence table's rows, bytes and oldest time.
import {
  EVIDENCE_TABLES,
  EXACT_COUNT_MAX_ROWS,
  type EvidenceTable,
  type EvidenceTableSize,
  type RetentionPort,
} from '../ports/retention.js';
import type { Queryable } from './pool.js';

/** Each table's key and when its row was recorded (a turn's start for the session index); every time column is indexed. */
const COLUMNS: Record<EvidenceTable, { key: string; time: string }> = {
  trajectory: { key: 'id', time: 'ts' },
  session_index: { key: 'trace_id', time: 'started_at' },
  token_usage: { key: 'id', time: 'ts' },
  delivery_traces: { key: 'id', time: 'ts' },
  diagnostic_events: { key: 'id', time: 'ts' },
  health_signals: { key: 'id', time: 'ts' },
  audit_log: { key: 'id', time: 'ts' },
};

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
         c.reltuples::float8 AS estimate, pg_total_relation_size(c.oid) AS bytes, (SELECT MIN(${COLUMNS[table].time}) FROM ${table}) AS oldest
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
      const { key, time } = COLUMNS[table];
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
