// The shapes of budgets shared by the ledgers (in-process and Redis), the model-call gate and the budgets.* methods.
import type { BudgetConfig } from '../config/index.js';

/**
 * What one model call may cost at most (reserved before dispatch) or cost in the end (settled after it). Cost is in
 * integer micro-USD: Redis scripts count in integers, and sums of float dollars drift.
 */
export interface BudgetAmount {
  costMicroUsd: number;
  tokens: number;
}

/** The budgets a call counts against: its agent's, its token's, its tenant's and the global ones that exist. */
export interface BudgetSubject {
  agentId: string;
  tokenId: string;
  tenantId: string;
}

/** A held reservation: what settle and release need, whichever ledger made it. */
export interface BudgetReservation {
  id: string;
  subject: BudgetSubject;
  amount: BudgetAmount;
}

export type ReserveOutcome =
  /**
   * `warnings`: the budgets whose warning fraction this reservation reaches; `exhausted`: those it brings to a limit,
   * or past it (warn budgets only: a block budget refuses a reservation that would cross it).
   */
  | { ok: true; reservation: BudgetReservation; warnings: readonly string[]; exhausted: readonly string[] }
  /** The first budget (in config order) the reservation would have crossed, and when its window lets the call through again. */
  | { ok: false; budgetId: string; retryAfterMs: number };

export interface BudgetUsage {
  budgetId: string;
  scope: string;
  action: 'block' | 'warn';
  windowStart: number;
  windowEnd: number;
  used: BudgetAmount;
  reserved: BudgetAmount;
  limits: { maxCostUsd?: number; maxTokens?: number };
}

/** What every ledger is built from: the budgets in force (hot-applied config, read on each call), a clock and ids. */
export interface SharedLedgerDeps {
  budgets: () => readonly BudgetConfig[];
  now: () => number;
  newId: () => string;
  /** The budget rule (applicable.ts, windows.ts), handed in so the Redis ledger counts exactly as the local one. */
  rules: BudgetRules;
}

type BudgetWindowConfig = BudgetConfig['window'];

/** The functions of the budget rule a ledger applies: which budgets count, whether an ask fits, the buckets. */
export interface BudgetRules {
  applicableBudgets(budgets: readonly BudgetConfig[], subject: BudgetSubject): BudgetConfig[];
  fits(
    budgets: readonly BudgetConfig[],
    totals: (budget: BudgetConfig) => BudgetAmount,
    ask: BudgetAmount,
    now: number,
  ): { fits: true; warnings: string[]; exhausted: string[] } | { fits: false; budgetId: string; retryAfterMs: number };
  toMicroUsd(usd: number): number;
  bucketAt(window: BudgetWindowConfig, at: number): number;
  bucketCountedUntil(window: BudgetWindowConfig, bucket: number): number;
  bucketsAt(window: BudgetWindowConfig, now: number): number[];
  windowAt(window: BudgetWindowConfig, now: number): { start: number; end: number };
}

/**
 * Reservations and settlements against every budget that applies, atomic per call: N callers (or N replicas sharing
 * Redis) never pass a limit together. A reservation not settled or released within its ttl expires (a crashed process).
 */
export interface BudgetLedger {
  reserve(subject: BudgetSubject, worstCase: BudgetAmount, ttlMs: number): Promise<ReserveOutcome>;
  /** Replaces the reservation by what the call really used (counted even when the reservation has expired). */
  settle(reservation: BudgetReservation, actual: BudgetAmount): Promise<void>;
  /** Drops a reservation whose call never ran. */
  release(reservation: BudgetReservation): Promise<void>;
  /** Each configured budget's current window, or only those of one scope. */
  usage(scope?: string): Promise<BudgetUsage[]>;
  /** Writes what is still buffered (the in-process ledger's durable usage) and stops. */
  close(): Promise<void>;
}
