// Shared migration 25: execution graphs — definitions by name, graph runs, and each run's node records (the state a
// restarted gateway reads to mark a run orphaned and to resume it from its completed nodes).
import type { Compilable, Kysely } from 'kysely';

export const GRAPHS_MIGRATION = {
  version: 25,
  name: 'graphs',
  up(db: Kysely<unknown>): readonly Compilable[] {
    return [
      db.schema
        .createTable('graphs')
        .addColumn('name', 'text', (column) => column.primaryKey())
        .addColumn('definition', 'text', (column) => column.notNull())
        .addColumn('created_by', 'text', (column) => column.notNull())
        .addColumn('created_at', 'bigint', (column) => column.notNull())
        .addColumn('updated_at', 'bigint', (column) => column.notNull()),
      db.schema
        .createTable('graph_runs')
        .addColumn('run_id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('owner_id', 'text', (column) => column.notNull())
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('vars', 'text', (column) => column.notNull())
        .addColumn('output', 'text')
        .addColumn('error', 'text')
        .addColumn('resumed_from', 'text')
        .addColumn('created_at', 'bigint', (column) => column.notNull())
        .addColumn('updated_at', 'bigint', (column) => column.notNull()),
      db.schema.createIndex('graph_runs_by_time').on('graph_runs').columns(['created_at', 'run_id']),
      db.schema.createIndex('graph_runs_by_name').on('graph_runs').columns(['name', 'created_at']),
      db.schema.createIndex('graph_runs_by_owner').on('graph_runs').columns(['owner_id', 'created_at']),
      db.schema.createIndex('graph_runs_by_state').on('graph_runs').column('state'),
      db.schema
        .createTable('graph_nodes')
        .addColumn('run_id', 'text', (column) => column.notNull())
        .addColumn('node_id', 'text', (column) => column.notNull())
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('attempts', 'integer', (column) => column.notNull())
        .addColumn('started_at', 'bigint')
        .addColumn('ended_at', 'bigint')
        .addColumn('output', 'text')
        .addColumn('error', 'text')
        .addPrimaryKeyConstraint('graph_nodes_pk', ['run_id', 'node_id']),
    ];
  },
};
