// The budget usage port: what the in-process budget ledger settled, per budget and usage bucket, so a restart keeps
// the day's and month's spend (src/budgets).

/** One budget's settled use in one bucket (a day's or month's start, or a rolling window's minute slot; epoch ms). */
export interface BudgetUsageRow {
  budgetId: string;
  bucketStart: number;
  /** Integer micro-USD. */
  costMicroUsd: number;
  tokens: number;
}

export interface BudgetUsagePort {
  /**
   * Adds each row to what its (budget, bucket) already holds, all rows in one transaction: increments, so two
   * writers of the same bucket both count.
   */
  addUsage(rows: readonly BudgetUsageRow[]): Promise<void>;
  /** Every row of a bucket starting at or after `sinceBucketStart`, ordered by budget then bucket. */
  readUsage(sinceBucketStart: number): Promise<BudgetUsageRow[]>;
  /** Deletes the rows of buckets starting before `bucketStart`; resolves to how many went. */
  deleteUsageBefore(bucketStart: number): Promise<number>;
}
