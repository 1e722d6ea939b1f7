// The shapes of budgets shared by the ledgers (in-process and Redis), the model-call gate and the budgets.* methods.

/** What one model call may cost at most (reserved before dispatch) or cost in the end (settled after it). */
export interface BudgetAmount {
  costUsd: number;
  tokens: number;
}

/** The budgets a call counts against: its agent's, its token's, its tenant's and the global ones that exist. */
export interface BudgetSubject {
  agentId: string;
  tokenId: string;
  tenantId: string;
}

export type ReserveOutcome =
  | { ok: true; reservationId: string; warnings: readonly string[] }
  /** The first budget (by id) the reservation would have crossed, and when its window lets the call through again. */
  | { ok: false; budgetId: string; retryAfterMs: number };

export interface BudgetUsage {
  budgetId: string;
  scope: string;
  windowStart: number;
  windowEnd: number;
  used: BudgetAmount;
  reserved: BudgetAmount;
  limits: { maxCostUsd?: number; maxTokens?: number };
}

/**
 * Reservations and settlements against every budget that applies, atomic per call: N callers (or N replicas sharing
 * Redis) never pass a limit together. A reservation not settled or released within its ttl expires (a crashed process).
 */
export interface BudgetLedger {
  reserve(subject: BudgetSubject, worstCase: BudgetAmount, ttlMs: number): Promise<ReserveOutcome>;
  /** Replaces the reservation by what the call really used. */
  settle(reservationId: string, actual: BudgetAmount): Promise<void>;
  /** Drops a reservation whose call never ran. */
  release(reservationId: string): Promise<void>;
  usage(scope?: string): Promise<BudgetUsage[]>;
}
