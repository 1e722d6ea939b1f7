// The PostgreSQL RetentionPort: deletes the oldest evidence a bounded batch per statement and reports the database's
// size and each evidence table's rows, bytes and oldest time.
import type { EvidenceTable, EvidenceTableSize, RetentionPort } from '../ports/retention.js';
import { EVIDENCE_TABLES, EXACT_COUNT_MAX_ROWS } from '../ports/retention.js';
import { EVIDENCE_SOURCES, EVIDENCE_TIME_COLUMNS } from '../shared/index.js';
import type { Queryable } from './pool.js';

/** Each table's key: the column its oldest rows are deleted by. */
const KEYS: Record<EvidenceTable, string> = {
  trajectory: 'id',
  session_index: 'trace_id',
  token_usage: 'id',
  delivery_traces: 'id',
  diagnostic_events: 'id',
  health_signals: 'id',
  audit_log: 'id',
  learning_outcomes: 'trace_id',
  procedure_uses: 'id',
  graph_runs: 'run_id',
};

/** The oldest `$2` finished graph runs before `$1` go with their node records; resolves to the runs' count. */
const DELETE_GRAPH_RUNS = `WITH old AS (SELECT run_id FROM graph_runs WHERE updated_at < $1 AND state <> 'running'
    ORDER BY updated_at, run_id LIMIT $2 FOR UPDATE),
  nodes AS (DELETE FROM graph_nodes USING old WHERE graph_nodes.run_id = old.run_id)
  DELETE FROM graph_runs USING old WHERE graph_runs.run_id = old.run_id`;

interface TableRow {
  counted: number;
  estimate: number;
  bytes: number;
  oldest: number | null;
}

export function createPostgresRetentionPort(db: Queryable): RetentionPort {
  async function tableSize(table: EvidenceTable): Promise<EvidenceTableSize> {
    const source = EVIDENCE_SOURCES[table];
    // Counting stops one row past the limit; a larger table reports the planner's estimate (reltuples) instead.
    const result = await db.query<TableRow>(
      `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM ${source} LIMIT ${EXACT_COUNT_MAX_ROWS + 1}) AS head) AS counted,
         c.reltuples::float8 AS estimate, pg_total_relation_size(c.oid) AS bytes, (SELECT MIN(${EVIDENCE_TIME_COLUMNS[table]}) FROM ${source}) AS oldest
       FROM pg_class c WHERE c.oid = to_regclass($1)`,
      [source],
    );
    const row = result.rows[0] ?? { counted: 0, estimate: 0, bytes: 0, oldest: null };
    const isExact = row.counted <= EXACT_COUNT_MAX_ROWS;
    const size = {
      table,
      rows: isExact ? row.counted : Math.max(Math.round(row.estimate), row.counted),
      rowsExact: isExact,
      oldestMs: row.oldest,
      bytes: row.bytes,
    };
    return table === 'trajectory' ? withSteps(size) : size;
  }

  /** The trajectory also counts the steps in turns' rows (of up to the counting limit of turns). */
  async function withSteps(loose: EvidenceTableSize): Promise<EvidenceTableSize> {
    const result = await db.query<{ steps: number; turns: number; oldest: number | null }>(
      `SELECT COALESCE(SUM(json_array_length(steps::json)), 0) AS steps, COUNT(*) AS turns,
         (SELECT MIN(started_at) FROM turns WHERE steps <> '[]') AS oldest
       FROM (SELECT steps FROM turns LIMIT ${EXACT_COUNT_MAX_ROWS + 1}) AS head`,
    );
    const { steps = 0, turns = 0, oldest = null } = result.rows[0] ?? {};
    const times = [loose.oldestMs, oldest].filter((ms): ms is number => ms !== null);
    return {
      ...loose,
      rows: loose.rows + steps,
      rowsExact: loose.rowsExact && turns <= EXACT_COUNT_MAX_ROWS,
      oldestMs: times.length === 0 ? null : Math.min(...times),
    };
  }

  return {
    async deleteBefore(table, beforeMs, limit) {
      if (table === 'graph_runs') return (await db.query(DELETE_GRAPH_RUNS, [beforeMs, limit])).rowCount ?? 0;
      const [source, key, time] = [EVIDENCE_SOURCES[table], KEYS[table], EVIDENCE_TIME_COLUMNS[table]];
      const result = await db.query(
        `DELETE FROM ${source} WHERE ${key} IN (SELECT ${key} FROM ${source} WHERE ${time} < $1 ORDER BY ${time} LIMIT $2)`,
        [beforeMs, limit],
      );
      const deleted = result.rowCount ?? 0;
      if (table !== 'trajectory' || deleted >= limit) return deleted;
      // Turns older than the cut-off are deleted next (session_index); their steps go first, counted as records.
      const stripped = await db.query<{ steps: number }>(
        `WITH old AS (SELECT trace_id, json_array_length(steps::json) AS steps FROM turns
           WHERE started_at < $1 AND steps <> '[]' ORDER BY started_at LIMIT $2 FOR UPDATE),
         emptied AS (UPDATE turns SET steps = '[]' FROM old WHERE turns.trace_id = old.trace_id)
         SELECT COALESCE(SUM(steps), 0) AS steps FROM old`,
        [beforeMs, limit],
      );
      return deleted + (stripped.rows[0]?.steps ?? 0);
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
