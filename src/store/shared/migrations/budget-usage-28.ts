// Shared migration 28: the budget ledger's settled use per budget and bucket, so spend limits hold across a restart.
import type { Compilable, Kysely } from 'kysely';

export const BUDGET_USAGE_MIGRATION = {
  version: 28,
  name: 'budget_usage',
  up(db: Kysely<unknown>): readonly Compilable[] {
    return [
      db.schema
        .createTable('budget_usage')
        .addColumn('budget_id', 'text', (column) => column.notNull())
        .addColumn('bucket_start', 'bigint', (column) => column.notNull())
        .addColumn('cost_micro_usd', 'bigint', (column) => column.notNull())
        .addColumn('tokens', 'bigint', (column) => column.notNull())
        .addPrimaryKeyConstraint('budget_usage_pk', ['budget_id', 'bucket_start']),
      // The load at start and the prune read by bucket alone.
      db.schema.createIndex('budget_usage_by_bucket').on('budget_usage').column('bucket_start'),
    ];
  },
};
