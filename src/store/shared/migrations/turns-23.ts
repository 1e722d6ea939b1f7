// Shared migration 23: one compact row per turn (`turns`, its steps as one JSON text) in place of a session_index row
// and a trajectory row per step; existing evidence moves into it, and views keep the old names readable.
import { sql, type Compilable, type Kysely } from 'kysely';
import type { Dialect } from '../store-db.js';

/** Raw schema SQL as a statement of the migration (no bound parameters). */
const raw = (db: Kysely<unknown>, text: string): Compilable => ({ compile: () => sql.raw(text).compile(db) });

/** A step as stored, `[kind, ts, data]`, built from a legacy trajectory row `t` (data that is not JSON reads as {}). */
const STEP = {
  sqlite: `json_array(t.kind, t.ts, CASE WHEN json_valid(t.data) THEN json(t.data) ELSE json_object() END)`,
  postgres: `json_build_array(t.kind, t.ts, t.data::json)`,
};
const STEPS_OF_INDEXED = {
  sqlite: `(SELECT json_group_array(${STEP.sqlite} ORDER BY t.seq, t.id) FROM trajectory t
     WHERE t.trace_id = s.trace_id AND t.session_key = s.session_key)`,
  postgres: `(SELECT json_agg(${STEP.postgres} ORDER BY t.seq, t.id)::text FROM trajectory t
     WHERE t.trace_id = s.trace_id AND t.session_key = s.session_key)`,
};

/**
 * Every record of a session in read order, with the seq it reads as: turns by start, each turn's steps in order, and a
 * record kept outside any turn's row (a late one, a fixture) placed by its own time, in append order.
 */
const RECORDS_VIEW = {
  sqlite: `SELECT NULL AS id, t.session_key, t.trace_id, j.value ->> 1 AS ts, j.value ->> 0 AS kind, j.value -> 2 AS data,
       t.started_at AS k1, t.trace_id AS k2, 0 AS k3, j.key AS k4 FROM turns t, json_each(t.steps) j
     UNION ALL
     SELECT r.id, r.session_key, r.trace_id, r.ts, r.kind, r.data, r.ts, '', 1, r.id
     FROM loose_records r LEFT JOIN turns u ON u.trace_id = r.trace_id`,
  postgres: `SELECT NULL::bigint AS id, t.session_key, t.trace_id, (j.value ->> 1)::bigint AS ts, j.value ->> 0 AS kind,
       (j.value -> 2)::text AS data, t.started_at AS k1, t.trace_id AS k2, 0 AS k3, j.k4::bigint AS k4
     FROM turns t CROSS JOIN LATERAL json_array_elements(t.steps::json) WITH ORDINALITY AS j(value, k4)
     UNION ALL
     SELECT r.id::bigint, r.session_key, r.trace_id, r.ts, r.kind, r.data, r.ts, '', 1, r.id::bigint
     FROM loose_records r LEFT JOIN turns u ON u.trace_id = r.trace_id`,
};

const INDEX_COLUMNS =
  'trace_id, session_key, agent_id, channel, message_id, root_run_id, end_reason, degraded, started_at, ended_at, day, synthetic';

export const TURNS_MIGRATION = {
  version: 23,
  name: 'compact_turns',
  up(db: Kysely<unknown>, dialect: Dialect): readonly Compilable[] {
    const isSqlite = dialect === 'sqlite';
    const flag = isSqlite ? 'integer' : 'boolean';
    const no = isSqlite ? 0 : false;
    return [
      db.schema
        .createTable('turns')
        .addColumn('trace_id', 'text', (column) => column.primaryKey())
        .addColumn('session_key', 'text', (column) => column.notNull())
        .addColumn('agent_id', 'text', (column) => column.notNull())
        .addColumn('channel', 'text', (column) => column.notNull())
        .addColumn('message_id', 'text')
        .addColumn('root_run_id', 'text')
        .addColumn('end_reason', 'text')
        .addColumn('degraded', flag, (column) => column.notNull().defaultTo(no))
        .addColumn('started_at', 'bigint', (column) => column.notNull())
        .addColumn('ended_at', 'bigint')
        .addColumn('day', 'text', (column) => column.notNull())
        .addColumn('synthetic', flag, (column) => column.notNull().defaultTo(no))
        .addColumn('steps', 'text', (column) => column.notNull().defaultTo('[]')),
      // Only where a report reads: a session's turns, a window of turns (also the day search and retention), and the
      // sparse root-run and message lookups, indexed only on rows that carry them.
      db.schema.createIndex('turns_by_session').on('turns').columns(['session_key', 'started_at']),
      db.schema.createIndex('turns_by_started').on('turns').column('started_at'),
      db.schema
        .createIndex('turns_by_root')
        .on('turns')
        .column('root_run_id')
        .where(sql.ref('root_run_id'), 'is not', null),
      db.schema
        .createIndex('turns_by_message')
        .on('turns')
        .column('message_id')
        .where(sql.ref('message_id'), 'is not', null),
      db.schema
        .createTable('loose_records')
        .addColumn('id', isSqlite ? 'integer' : 'bigserial', (column) =>
          isSqlite ? column.primaryKey().autoIncrement() : column.primaryKey(),
        )
        .addColumn('session_key', 'text', (column) => column.notNull())
        .addColumn('trace_id', 'text', (column) => column.notNull())
        .addColumn('ts', 'bigint', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('data', 'text', (column) => column.notNull()),
      db.schema.createIndex('loose_records_by_session').on('loose_records').columns(['session_key', 'id']),
      db.schema.createIndex('loose_records_by_trace').on('loose_records').column('trace_id'),
      db.schema.createIndex('loose_records_by_kind').on('loose_records').columns(['kind', 'id']),
      db.schema.createIndex('loose_records_by_ts').on('loose_records').column('ts'),
      raw(
        db,
        `INSERT INTO turns (${INDEX_COLUMNS}, steps)
         SELECT ${INDEX_COLUMNS.replace(/(\w+)/g, 's.$1')}, COALESCE(${STEPS_OF_INDEXED[dialect]}, '[]') FROM session_index s`,
      ),
      // Records of no indexed turn keep their per-session order as id order.
      raw(
        db,
        `INSERT INTO loose_records (session_key, trace_id, ts, kind, data)
         SELECT t.session_key, t.trace_id, t.ts, t.kind, t.data FROM trajectory t
         WHERE NOT EXISTS (SELECT 1 FROM session_index s WHERE s.trace_id = t.trace_id AND s.session_key = t.session_key)
         ORDER BY t.session_key, t.seq, t.id`,
      ),
      db.schema.dropTable('trajectory'),
      db.schema.dropTable('session_index'),
      ...(isSqlite ? [] : [db.schema.dropTable('trajectory_seqs')]),
      raw(db, `CREATE VIEW session_index AS SELECT ${INDEX_COLUMNS} FROM turns`),
      raw(
        db,
        `CREATE VIEW trajectory AS SELECT id, session_key, trace_id,
           ROW_NUMBER() OVER (PARTITION BY session_key ORDER BY k1, k2, k3, k4) AS seq, ts, kind, data
         FROM (${RECORDS_VIEW[dialect]}) AS records`,
      ),
      // A row inserted by hand into the old table name lands where records outside a turn's row live.
      ...(isSqlite
        ? [
            raw(
              db,
              `CREATE TRIGGER trajectory_insert INSTEAD OF INSERT ON trajectory BEGIN
                 INSERT INTO loose_records (session_key, trace_id, ts, kind, data)
                 VALUES (NEW.session_key, NEW.trace_id, NEW.ts, NEW.kind, NEW.data);
               END`,
            ),
          ]
        : []),
    ];
  },
};
