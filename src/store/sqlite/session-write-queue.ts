// Group commit for session writes: appends and usage totals wait in memory and one transaction per flush writes them all.
import Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { isGatewayError } from '../../errors.js';
import type { TurnUsage } from '../index.js';
import type { MessageRowValues } from '../shared/index.js';
import type { SessionWriteLimits } from './session-write-limits.js';

export type QueuedSessionWrite =
  | { kind: 'append'; sessionKey: string; rows: readonly MessageRowValues[]; now: number }
  | { kind: 'usage'; sessionKey: string; usage: TurnUsage; now: number };

export interface SessionWriteQueue {
  /**
   * Queues a write whose session was checked to exist; `chars` is its size toward maxQueuedChars. Resolves once the
   * transaction holding it committed; rejects with its error when it was dropped.
   */
  enqueue(write: QueuedSessionWrite, chars: number): Promise<void>;
  /** Whether a write of this session waits in the queue (so the session existed when it was queued). */
  hasPending(sessionKey: string): boolean;
  /** Writes everything queued now, synchronously; failures are logged and the failed writes dropped (their callers rejected). */
  flush(): void;
}

export interface SessionWriteQueueOptions {
  /** Writes the batch in one transaction, all or nothing; throws when it rolled back. */
  write: (batch: readonly QueuedSessionWrite[]) => void;
  isOpen: () => boolean;
  limits: SessionWriteLimits;
  log: Logger;
}

/**
 * Errors that belong to one write (its session was deleted by another connection, a constraint failed): the other
 * writes of the batch are retried one by one. Anything else (a closed file, the lock held past busy_timeout, a full
 * disk) would fail each retry too, and each retry could wait busy_timeout again, so the whole batch is dropped.
 */
function isWriteSpecific(error: unknown): boolean {
  if (isGatewayError(error)) return error.kind === 'not_found';
  return error instanceof Database.SqliteError && error.code.startsWith('SQLITE_CONSTRAINT');
}

/** The writes of one flush that were not stored, each with its error; empty when the transaction committed. */
type Dropped = ReadonlyMap<QueuedSessionWrite, unknown>;

const NOTHING_DROPPED: Dropped = new Map();

/**
 * Writes reach the file on the next setImmediate after the first one was queued, so every turn that finishes in the
 * same event-loop turn shares one commit, or at once when the queue reaches its limits. A caller is answered when the
 * transaction holding its write committed (every write of a flush waits on the one promise that flush settles), so an
 * answer never speaks for a write that a process killed with SIGKILL could still lose; a clean shutdown writes them through StorePorts.close().
 */
export function createSessionWriteQueue({ write, isOpen, limits, log }: SessionWriteQueueOptions): SessionWriteQueue {
  let queued: QueuedSessionWrite[] = [];
  /** Settled by the flush that writes what is queued now; created by the first write queued after the last flush. */
  let flushed: { promise: Promise<Dropped>; settle: (dropped: Dropped) => void } | undefined;
  const pendingKeys = new Set<string>();
  let queuedMessages = 0;
  let queuedChars = 0;
  let scheduled: NodeJS.Immediate | undefined;

  function nextFlush(): Promise<Dropped> {
    if (flushed === undefined) {
      let settle: (dropped: Dropped) => void = () => undefined;
      const promise = new Promise<Dropped>((resolve) => (settle = resolve));
      flushed = { promise, settle };
    }
    return flushed.promise;
  }

  function reportDropped(dropped: readonly QueuedSessionWrite[], error: unknown): void {
    const sessionKeys = [...new Set(dropped.map((entry) => entry.sessionKey))];
    let droppedMessages = 0;
    let droppedUsage = 0;
    for (const entry of dropped) {
      if (entry.kind === 'append') droppedMessages += entry.rows.length;
      else droppedUsage += 1;
    }
    // Keys and counts only: message bodies never reach the log.
    log.error(
      { err: error, sessionKeys, droppedMessages, droppedUsage },
      'queued session writes could not be stored and were dropped',
    );
  }

  function dropAll(batch: readonly QueuedSessionWrite[], error: unknown): Dropped {
    reportDropped(batch, error);
    return new Map(batch.map((entry) => [entry, error]));
  }

  function writeOneByOne(batch: readonly QueuedSessionWrite[]): Dropped {
    const dropped = new Map<QueuedSessionWrite, unknown>();
    let firstError: unknown;
    for (const entry of batch) {
      try {
        write([entry]);
      } catch (error) {
        dropped.set(entry, error);
        firstError ??= error;
      }
    }
    if (dropped.size > 0) reportDropped([...dropped.keys()], firstError);
    return dropped;
  }

  function writeBatch(batch: readonly QueuedSessionWrite[]): Dropped {
    if (!isOpen()) return dropAll(batch, new Error('the database was closed before the queued writes were flushed'));
    try {
      write(batch);
      return NOTHING_DROPPED;
    } catch (error) {
      return batch.length > 1 && isWriteSpecific(error) ? writeOneByOne(batch) : dropAll(batch, error);
    }
  }

  function flush(): void {
    if (scheduled !== undefined) {
      clearImmediate(scheduled);
      scheduled = undefined;
    }
    if (queued.length === 0) return;
    const batch = queued;
    const waiting = flushed;
    queued = [];
    flushed = undefined;
    pendingKeys.clear();
    queuedMessages = 0;
    queuedChars = 0;
    waiting?.settle(writeBatch(batch));
  }

  return {
    enqueue(entry, chars) {
      queued.push(entry);
      pendingKeys.add(entry.sessionKey);
      queuedMessages += entry.kind === 'append' ? entry.rows.length : 1;
      queuedChars += chars;
      const stored = nextFlush().then((dropped) => {
        if (dropped.has(entry)) throw dropped.get(entry);
      });
      if (queuedMessages >= limits.maxQueuedMessages || queuedChars >= limits.maxQueuedChars) flush();
      else scheduled ??= setImmediate(flush);
      return stored;
    },
    hasPending: (sessionKey) => pendingKeys.has(sessionKey),
    flush,
  };
}
