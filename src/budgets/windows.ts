// A budget's window at a moment: a UTC day or month from its first millisecond, or the last `rollingMs`.
import type { BudgetConfig } from '../config/index.js';

export interface BudgetWindow {
  /** First millisecond counted (epoch ms). */
  start: number;
  /** When the window has moved past everything counted now: a refusal's Retry-After counts to it. */
  end: number;
}

export function windowAt(window: BudgetConfig['window'], now: number): BudgetWindow {
  const date = new Date(now);
  if (window === 'day') {
    const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
    return { start, end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1) };
  }
  if (window === 'month') {
    const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    return { start, end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) };
  }
  return { start: now - window.rollingMs, end: now + window.rollingMs };
}
