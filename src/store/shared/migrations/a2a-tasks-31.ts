// Shared migration 31: the A2A tasks, so GetTask and ListTasks answer after a restart and on every replica.
import type { Compilable, Kysely } from 'kysely';

export const A2A_TASKS_MIGRATION = {
  version: 31,
  name: 'a2a_tasks',
  up(db: Kysely<unknown>): readonly Compilable[] {
    return [
      db.schema
        .createTable('a2a_tasks')
        .addColumn('task_id', 'text', (column) => column.primaryKey())
        .addColumn('owner_id', 'text', (column) => column.notNull())
        .addColumn('agent_id', 'text', (column) => column.notNull())
        .addColumn('context_id', 'text', (column) => column.notNull())
        .addColumn('state', 'integer', (column) => column.notNull())
        .addColumn('updated_at', 'bigint', (column) => column.notNull())
        .addColumn('is_terminal', 'integer', (column) => column.notNull())
        .addColumn('body', 'text', (column) => column.notNull()),
      // ListTasks reads one owner's tasks at one agent, newest update first.
      db.schema
        .createIndex('a2a_tasks_by_owner')
        .on('a2a_tasks')
        .columns(['owner_id', 'agent_id', 'updated_at', 'task_id']),
      // The prune keeps the newest finished tasks.
      db.schema.createIndex('a2a_tasks_finished').on('a2a_tasks').columns(['is_terminal', 'updated_at']),
    ];
  },
};
