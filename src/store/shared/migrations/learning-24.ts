// Shared migration 24: learning's tables: each finished turn's outcome record, learned procedures, their uses in
// turns, and each agent's last reflect pass. Outcome records and uses are evidence: indexed by time, so the retention
// sweep finds the oldest without reading the table.
import type { Compilable, Kysely } from 'kysely';
import type { Dialect } from '../store-db.js';

export const LEARNING_MIGRATION = {
  version: 24,
  name: 'learning',
  up(db: Kysely<unknown>, dialect: Dialect): readonly Compilable[] {
    const isSqlite = dialect === 'sqlite';
    const flag = isSqlite ? 'integer' : 'boolean';
    return [
      db.schema
        .createTable('learning_outcomes')
        .addColumn('trace_id', 'text', (column) => column.primaryKey())
        .addColumn('agent_id', 'text', (column) => column.notNull())
        .addColumn('owner_id', 'text')
        .addColumn('session_key', 'text', (column) => column.notNull())
        .addColumn('sender_id', 'text', (column) => column.notNull())
        .addColumn('ts', 'bigint', (column) => column.notNull())
        .addColumn('outcome', 'text')
        .addColumn('sources', 'text', (column) => column.notNull())
        .addColumn('tool_sequence', 'text', (column) => column.notNull())
        .addColumn('topic_key', 'text', (column) => column.notNull())
        .addColumn('trusted', flag, (column) => column.notNull())
        .addColumn('skills_used', 'text', (column) => column.notNull())
        .addColumn('recalled_memory_ids', 'text', (column) => column.notNull())
        .addColumn('source_chars', 'bigint', (column) => column.notNull()),
      db.schema.createIndex('learning_outcomes_by_agent').on('learning_outcomes').columns(['agent_id', 'ts']),
      db.schema.createIndex('learning_outcomes_by_session').on('learning_outcomes').columns(['session_key', 'ts']),
      db.schema.createIndex('learning_outcomes_by_ts').on('learning_outcomes').column('ts'),
      db.schema
        .createTable('learned_procedures')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('agent_id', 'text', (column) => column.notNull())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('description', 'text', (column) => column.notNull())
        .addColumn('body', 'text', (column) => column.notNull())
        .addColumn('tools', 'text', (column) => column.notNull())
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('tool_sequence', 'text', (column) => column.notNull())
        .addColumn('topic_key', 'text', (column) => column.notNull())
        .addColumn('cardinality', 'integer', (column) => column.notNull())
        .addColumn('synthesis_abstained', flag, (column) => column.notNull())
        .addColumn('source_trace_ids', 'text', (column) => column.notNull())
        .addColumn('success_uses', 'integer', (column) => column.notNull())
        .addColumn('failure_uses', 'integer', (column) => column.notNull())
        .addColumn('created_at', 'bigint', (column) => column.notNull())
        .addColumn('updated_at', 'bigint', (column) => column.notNull())
        .addColumn('state_since', 'bigint', (column) => column.notNull()),
      db.schema
        .createIndex('learned_procedures_by_agent')
        .on('learned_procedures')
        .columns(['agent_id', 'created_at', 'id']),
      db.schema
        .createIndex('learned_procedures_by_shape')
        .on('learned_procedures')
        .columns(['agent_id', 'topic_key', 'tool_sequence']),
      db.schema
        .createTable('procedure_uses')
        .addColumn('id', isSqlite ? 'integer' : 'bigserial', (column) =>
          isSqlite ? column.primaryKey().autoIncrement() : column.primaryKey(),
        )
        .addColumn('procedure_id', 'text', (column) => column.notNull())
        .addColumn('trace_id', 'text', (column) => column.notNull())
        .addColumn('session_key', 'text', (column) => column.notNull())
        .addColumn('outcome', 'text')
        .addColumn('ts', 'bigint', (column) => column.notNull()),
      db.schema.createIndex('procedure_uses_by_procedure').on('procedure_uses').columns(['procedure_id', 'ts']),
      db.schema.createIndex('procedure_uses_by_trace').on('procedure_uses').column('trace_id'),
      db.schema.createIndex('procedure_uses_by_ts').on('procedure_uses').column('ts'),
      db.schema
        .createTable('learning_passes')
        .addColumn('agent_id', 'text', (column) => column.primaryKey())
        .addColumn('passed_at', 'bigint', (column) => column.notNull()),
    ];
  },
};
