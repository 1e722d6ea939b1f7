// The SQLite RetentionPort: deletes the oldest evidence in short transactions (on the writer thread when the store has
// one, between the evidence batches it writes) and reports the file's size and each evidence table's rows.
import {
  EVIDENCE_TABLES,
  EXACT_COUNT_MAX_ROWS,
  type EvidenceTable,
  type EvidenceTableSize,
  type RetentionPort,
} from '../ports/retention.js';
import { EVIDENCE_SOURCES as SOURCES, EVIDENCE_TIME_COLUMNS as TIME_COLUMNS } from '../shared/index.js';
import type { SqliteDatabase } from './database.js';
import { createInThreadWriter, type WriterThread } from './sql-writer.js';

/** The oldest `limit` finished graph runs before the cut-off (a running one is never evidence). */
const OLD_GRAPH_RUNS =
  "SELECT run_id FROM graph_runs WHERE updated_at < ? AND state <> 'running' ORDER BY updated_at, run_id LIMIT ?";

/** The oldest `limit` turns before the cut-off that still hold steps. */
const OLD_STEPS = "SELECT rowid FROM turns WHERE started_at < ? AND steps <> '[]' ORDER BY started_at LIMIT ?";

/**
 * One statement per table, in EVIDENCE_TABLES order: the oldest `limit` rows before the cut-off, found through the time
 * index (finished graph runs only); then the one that empties the steps of the oldest turns (their trajectory records)
 * before the cut-off, and the one that deletes the node records of the graph runs the graph_runs one deletes next.
 */
const DELETES = [
  ...EVIDENCE_TABLES.map((table) => {
    if (table === 'graph_runs') return `DELETE FROM graph_runs WHERE run_id IN (${OLD_GRAPH_RUNS})`;
    const [source, time] = [SOURCES[table], TIME_COLUMNS[table]];
    return `DELETE FROM ${source} WHERE rowid IN (SELECT rowid FROM ${source} WHERE ${time} < ? ORDER BY ${time} LIMIT ?)`;
  }),
  `UPDATE turns SET steps = '[]' WHERE rowid IN (${OLD_STEPS})`,
  `DELETE FROM graph_nodes WHERE run_id IN (${OLD_GRAPH_RUNS})`,
];
const STRIP_STEPS = EVIDENCE_TABLES.length;
const GRAPH_NODES = EVIDENCE_TABLES.length + 1;

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
      `SELECT (SELECT MIN(rowid) FROM ${SOURCES[table]}) AS low, (SELECT MAX(rowid) FROM ${SOURCES[table]}) AS high, (SELECT MIN(${TIME_COLUMNS[table]}) FROM ${SOURCES[table]}) AS oldest`,
    ),
  );
  // Counting stops one row past the limit, so a table of any size costs at most that many index entries.
  const counts = EVIDENCE_TABLES.map((table) =>
    db
      .prepare<[], number>(`SELECT COUNT(*) FROM (SELECT 1 FROM ${SOURCES[table]} LIMIT ${EXACT_COUNT_MAX_ROWS + 1})`)
      .pluck(),
  );
  const oldSteps = db
    .prepare<[number, number], number>(
      `SELECT COALESCE(SUM(json_array_length(steps)), 0) FROM turns WHERE rowid IN (${OLD_STEPS})`,
    )
    .pluck();
  const stepCount = db
    .prepare<[], number>(
      `SELECT COALESCE(SUM(json_array_length(steps)), 0) FROM (SELECT steps FROM turns LIMIT ${EXACT_COUNT_MAX_ROWS + 1})`,
    )
    .pluck();
  const oldGraphRuns = db.prepare<[number, number], number>(`SELECT COUNT(*) FROM (${OLD_GRAPH_RUNS})`).pluck();
  const oldestStep = db.prepare<[], number | null>("SELECT MIN(started_at) FROM turns WHERE steps <> '[]'").pluck();
  const pragma = (name: 'page_count' | 'page_size' | 'freelist_count'): number =>
    db.prepare<[], number>(`PRAGMA ${name}`).pluck().get() ?? 0;

  /** The trajectory: records outside turns' rows, and the steps of (up to the counting limit of) turns. */
  function trajectorySize(index: number): EvidenceTableSize {
    const loose = tableSize(index, 'trajectory');
    const steps = stepCount.get() ?? 0;
    const oldest = [loose.oldestMs, oldestStep.get() ?? null].filter((ms): ms is number => ms !== null);
    return {
      ...loose,
      rows: loose.rows + steps,
      rowsExact:
        loose.rowsExact && (counts[EVIDENCE_TABLES.indexOf('session_index')]?.get() ?? 0) <= EXACT_COUNT_MAX_ROWS,
      oldestMs: oldest.length === 0 ? null : Math.min(...oldest),
    };
  }

  function tableSize(index: number, table: EvidenceTable): EvidenceTableSize {
    const { low, high, oldest } = ends[index]?.get() ?? { low: null, high: null, oldest: null };
    const counted = counts[index]?.get() ?? 0;
    if (counted <= EXACT_COUNT_MAX_ROWS || low === null || high === null)
      return { table, rows: counted, rowsExact: true, oldestMs: oldest, bytes: null };
    // Rows are appended with growing rowids and deleted oldest first, so the span of rowids is close to the count.
    return { table, rows: Math.max(high - low + 1, counted), rowsExact: false, oldestMs: oldest, bytes: null };
  }

  return {
    async deleteBefore(table, beforeMs, limit) {
      if (table === 'graph_runs') {
        // The runs are counted, not their node records; finished runs do not change, so the count is the batch's.
        const runs = oldGraphRuns.get(beforeMs, limit) ?? 0;
        if (runs > 0)
          await writer.run([
            [GRAPH_NODES, beforeMs, limit],
            [EVIDENCE_TABLES.indexOf(table), beforeMs, limit],
          ]);
        return runs;
      }
      const deleted = await writer.run([[EVIDENCE_TABLES.indexOf(table), beforeMs, limit]]);
      if (table !== 'trajectory' || deleted >= limit) return deleted;
      // Turns older than the cut-off are deleted next (session_index); their steps go first, counted as records.
      const steps = oldSteps.get(beforeMs, limit) ?? 0;
      if (steps > 0) await writer.run([[STRIP_STEPS, beforeMs, limit]]);
      return deleted + steps;
    },
    async size(signal) {
      signal?.throwIfAborted();
      const pageSize = pragma('page_size');
      return {
        backend: 'sqlite',
        databaseBytes: pragma('page_count') * pageSize,
        freeBytes: pragma('freelist_count') * pageSize,
        tables: EVIDENCE_TABLES.map((table, index) =>
          table === 'trajectory' ? trajectorySize(index) : tableSize(index, table),
        ),
      };
    },
  };
}
