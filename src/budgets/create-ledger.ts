// Which budget ledger the gateway runs: the one in Redis under `coordination: redis` (shared by every replica), else
// the in-process one with its settled use kept in the store.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { BudgetConfig } from '../config/index.js';
import type { BudgetUsagePort } from '../store/index.js';
import { openDurableLedger } from './durable-ledger.js';
import { applicableBudgets, fits, toMicroUsd } from './applicable.js';
import type { BudgetLedger, BudgetRules, SharedLedgerDeps } from './types.js';
import { bucketAt, bucketCountedUntil, bucketsAt, windowAt } from './windows.js';

export interface BudgetLedgerDeps {
  budgets: () => readonly BudgetConfig[];
  now: () => number;
  newId?: () => string;
  /** The store's budget usage: the in-process ledger's durable counters. */
  usage: BudgetUsagePort;
  log: Logger;
  /** Coordination's Redis ledger (absent for local coordination): when given, it is the ledger, and the store is unused. */
  shared?: (deps: SharedLedgerDeps) => BudgetLedger;
  /** How long settled increments of the in-process ledger wait to be written together (tests shorten it). */
  flushMs?: number;
}

/** The rule both ledgers apply, handed to the Redis one (coordination imports nothing of budgets at run time). */
const BUDGET_RULES: BudgetRules = {
  applicableBudgets,
  fits,
  toMicroUsd,
  bucketAt,
  bucketCountedUntil,
  bucketsAt,
  windowAt,
};

/** Rejects when the store's usage cannot be read: a ledger that forgot today's spend must not start. */
export async function createBudgetLedger({
  shared,
  usage,
  log,
  flushMs,
  newId = randomUUID,
  ...deps
}: BudgetLedgerDeps): Promise<BudgetLedger> {
  if (shared !== undefined) return shared({ ...deps, newId, rules: BUDGET_RULES });
  return openDurableLedger({ ...deps, newId, usage, log, ...(flushMs === undefined ? {} : { flushMs }) });
}
