// diagnostic:billing_snapshot: every obs.billingSnapshotIntervalMs (hourly by default) the cost and tokens recorded
// since the previous snapshot, so an /api/events subscriber follows spend without polling obs.billing.
import type { Logger } from 'pino';
import { createPeriodicTask } from '../periodic-task.js';
import type { EventBus } from '../events/index.js';
import type { Billing } from './billing.js';

export interface BillingSnapshotsDeps {
  billing: Pick<Billing, 'total'>;
  events: EventBus;
  /** obs.billingSnapshotIntervalMs, read before each wait; 0 stops the snapshots until a restart. */
  intervalMs: () => number;
  now: () => number;
  log?: Logger;
}

export interface BillingSnapshots {
  /** Schedules the first snapshot one interval from now; a second call does nothing. */
  start(): void;
  /** Cancels the next snapshot and waits for one being taken. */
  stop(): Promise<void>;
}

export function createBillingSnapshots({
  billing,
  events,
  intervalMs,
  now,
  log,
}: BillingSnapshotsDeps): BillingSnapshots {
  let since = now();

  async function snapshot(): Promise<void> {
    const until = now();
    const { totalCost, totalTokens } = await billing.total({ sinceMs: since });
    events.emit('diagnostic:billing_snapshot', { totalCost, totalTokens, sinceMs: since });
    since = until;
  }

  const task = createPeriodicTask({
    run: snapshot,
    intervalMs,
    onTimedFailure: (error) => log?.warn({ err: error }, 'billing snapshot failed; the next one tries again'),
  });
  return {
    start() {
      since = now();
      task.start();
    },
    stop: task.stop,
  };
}
