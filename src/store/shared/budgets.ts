// The BudgetUsagePort on both dialects: settled budget use per (budget, bucket), written as increments.
import type { BudgetUsagePort, BudgetUsageRow } from '../index.js';
import type { StoreDb } from './store-db.js';

/** Rows per INSERT: 4 parameters each, well under SQLite's 32,766 bound parameters per statement. */
const ROWS_PER_INSERT = 500;

/** One row per (budget, bucket): an upsert may not touch the same row twice in one statement (PostgreSQL). */
function merged(rows: readonly BudgetUsageRow[]): BudgetUsageRow[] {
  const byKey = new Map<string, BudgetUsageRow>();
  for (const row of rows) {
    const key = `${row.budgetId}|${row.bucketStart}`;
    const held = byKey.get(key);
    byKey.set(
      key,
      held === undefined
        ? { ...row }
        : { ...held, costMicroUsd: held.costMicroUsd + row.costMicroUsd, tokens: held.tokens + row.tokens },
    );
  }
  return [...byKey.values()];
}

export function createBudgetUsagePort(store: StoreDb): BudgetUsagePort {
  const { db } = store;
  const insert = (rows: readonly BudgetUsageRow[]) =>
    db
      .insertInto('budget_usage')
      .values(
        rows.map((row) => ({
          budget_id: row.budgetId,
          bucket_start: row.bucketStart,
          cost_micro_usd: row.costMicroUsd,
          tokens: row.tokens,
        })),
      )
      .onConflict((conflict) =>
        conflict.columns(['budget_id', 'bucket_start']).doUpdateSet((eb) => ({
          cost_micro_usd: eb('budget_usage.cost_micro_usd', '+', eb.ref('excluded.cost_micro_usd')),
          tokens: eb('budget_usage.tokens', '+', eb.ref('excluded.tokens')),
        })),
      );
  return {
    async addUsage(rows) {
      const all = merged(rows);
      if (all.length === 0) return;
      const statements = [];
      for (let at = 0; at < all.length; at += ROWS_PER_INSERT)
        statements.push(insert(all.slice(at, at + ROWS_PER_INSERT)));
      await store.atomic(statements);
    },
    async readUsage(sinceBucketStart) {
      const rows = await store.rows(
        db
          .selectFrom('budget_usage')
          .selectAll()
          .where('bucket_start', '>=', sinceBucketStart)
          .orderBy('budget_id')
          .orderBy('bucket_start'),
      );
      return rows.map((row) => ({
        budgetId: row.budget_id,
        bucketStart: row.bucket_start,
        costMicroUsd: row.cost_micro_usd,
        tokens: row.tokens,
      }));
    },
    deleteUsageBefore(bucketStart) {
      return store.changes(db.deleteFrom('budget_usage').where('bucket_start', '<', bucketStart));
    },
  };
}
