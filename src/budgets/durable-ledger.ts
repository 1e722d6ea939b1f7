// The in-process ledger made durable: at start it loads the settled use that can still count from the store, and it
// writes each settlement's increments behind, batched, so a restart (SQLite, or PostgreSQL without Redis) keeps the
// day's and month's spend.
import type { Logger } from 'pino';
import type { BudgetUsagePort, BudgetUsageRow } from '../store/index.js';
import { createLocalLedger, type LocalLedgerDeps } from './local-ledger.js';
import type { BudgetLedger } from './types.js';
import { USAGE_KEPT_MS } from './windows.js';

export interface DurableLedgerDeps extends Omit<LocalLedgerDeps, 'seed' | 'counted'> {
  usage: BudgetUsagePort;
  log: Logger;
  /** How long settled increments wait to be written together; tests shorten it. */
  flushMs?: number;
}

/** Settled increments are written at most this long after the settlement (and at close). */
export const USAGE_FLUSH_MS = 1_000;
/** A failed write is retried after this long, then twice as long each time, up to the ceiling. */
const RETRY_CEILING_MS = 30_000;
/** How often rows of buckets no window can count any more are deleted from the store. */
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Loads the use of the last USAGE_KEPT_MS (rejects when the store cannot be read: a ledger that forgot today's spend
 * must not start). Writes never run on a caller's path: settle only queues, a timer (unref'd) writes. A failed write
 * keeps its increments queued, merged per bucket so the queue stays bounded, and is logged and retried; close writes
 * what is queued and logs, at error level, what it could not.
 */
export async function openDurableLedger({
  usage,
  log,
  flushMs = USAGE_FLUSH_MS,
  ...deps
}: DurableLedgerDeps): Promise<BudgetLedger> {
  const seed = await usage.readUsage(deps.now() - USAGE_KEPT_MS);
  const queued = new Map<string, BudgetUsageRow>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let retryMs = flushMs;
  let prunedAt = -Infinity;
  let closed = false;

  const enqueue = (rows: BudgetUsageRow[]) => {
    for (const row of rows) {
      const key = `${row.budgetId}|${row.bucketStart}`;
      const held = queued.get(key);
      queued.set(
        key,
        held === undefined
          ? { ...row }
          : { ...held, costMicroUsd: held.costMicroUsd + row.costMicroUsd, tokens: held.tokens + row.tokens },
      );
    }
  };

  const schedule = (delayMs: number) => {
    if (timer !== undefined || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush();
    }, delayMs);
    timer.unref();
  };

  /** One write at a time: a flush waits for the one before it, then writes what is queued then. */
  const flush = (): Promise<void> => {
    writing = writing.then(async () => {
      if (queued.size === 0) return;
      const batch = [...queued.values()];
      queued.clear();
      try {
        await usage.addUsage(batch);
        retryMs = flushMs;
      } catch (error) {
        enqueue(batch);
        log.warn({ err: error, rows: batch.length, retryInMs: retryMs }, 'could not write budget usage; retrying');
        schedule(retryMs);
        retryMs = Math.min(retryMs * 2, RETRY_CEILING_MS);
        return;
      }
      await prune();
    });
    return writing;
  };

  const prune = async () => {
    const at = deps.now();
    if (at - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = at;
    await usage
      .deleteUsageBefore(at - USAGE_KEPT_MS)
      .catch((error: unknown) => log.warn({ err: error }, 'could not delete old budget usage; trying again later'));
  };

  const ledger = createLocalLedger({
    ...deps,
    seed,
    counted(rows) {
      enqueue(rows);
      schedule(flushMs);
    },
  });
  return {
    ...ledger,
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await flush();
      if (queued.size > 0) {
        const rows = [...queued.values()];
        log.error(
          {
            rows: rows.length,
            costMicroUsd: rows.reduce((sum, row) => sum + row.costMicroUsd, 0),
            tokens: rows.reduce((sum, row) => sum + row.tokens, 0),
          },
          'budget usage could not be written before shutdown; it is not counted after the restart',
        );
      }
      await ledger.close();
    },
  };
}
