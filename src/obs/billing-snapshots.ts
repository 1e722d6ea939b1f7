// diagnostic:billing_snapshot: every obs.billingSnapshotIntervalMs (hourly by default) the cost and tokens recorded
// since the previous snapshot, so an /api/events subscriber follows spend without polling obs.billing.
import type { Logger } from 'pino';
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
  stop(): void;
}

export function createBillingSnapshots({
  billing,
  events,
  intervalMs,
  now,
  log,
}: BillingSnapshotsDeps): BillingSnapshots {
  let timer: NodeJS.Timeout | undefined;
  let isStopped = false;
  let since = now();

  async function snapshot(): Promise<void> {
    const until = now();
    const { totalCost, totalTokens } = await billing.total({ sinceMs: since });
    events.emit('diagnostic:billing_snapshot', { totalCost, totalTokens, sinceMs: since });
    since = until;
  }

  function schedule(): void {
    const waitMs = intervalMs();
    if (isStopped || waitMs <= 0) return;
    timer = setTimeout(() => {
      snapshot()
        .catch((error: unknown) => log?.warn({ err: error }, 'billing snapshot failed; the next one tries again'))
        .finally(schedule);
    }, waitMs);
    timer.unref();
  }

  return {
    start() {
      if (timer !== undefined || isStopped) return;
      since = now();
      schedule();
    },
    stop() {
      isStopped = true;
      clearTimeout(timer);
    },
  };
}
