// A per-session async lock: work on one session key runs one at a time, in arrival order; keys never block each other.
import { sessionBusy } from '../errors.js';

/** What the holder of a session lock is told. */
export interface LockHold {
  /**
   * Grows with every acquisition of any session lock, so a later holder always has a larger number than an
   * earlier one: a write carrying it can be refused when a newer holder exists (a fencing token).
   */
  readonly fence: number;
  /**
   * Aborted when the lock was lost before the work finished (it lapsed while this replica could not renew it,
   * and another may now hold it): the work must stop writing. Never aborted by the local locks.
   */
  readonly signal: AbortSignal;
  /** False for the local locks, whose signal never aborts: a holder need not combine it with its own. */
  readonly canBeLost: boolean;
}

export interface SessionLocks {
  /** Runs `work` once every earlier holder of `sessionKey` has finished (resolved or thrown). */
  run<T>(sessionKey: string, work: (hold: LockHold) => Promise<T>): Promise<T>;
}

/**
 * Shared by every surface that runs turns or rewrites a transcript (session.send, spawn, reset_conversation,
 * compaction), so a reset never interleaves with a live turn on the same session. app.ts builds one and hands
 * it to each service that needs it.
 */
export function createSessionLocks(): SessionLocks {
  // The tail of each key's queue; removed when the last holder finishes so the map does not grow.
  const tails = new Map<string, Promise<void>>();
  const neverAborted = new AbortController().signal;
  let fence = 0;
  return {
    async run(sessionKey, work) {
      const previous = tails.get(sessionKey) ?? Promise.resolve();
      let release = (): void => {};
      const current = new Promise<void>((resolve) => {
        release = resolve;
      });
      const tail = previous.then(() => current);
      tails.set(sessionKey, tail);
      await previous;
      try {
        fence += 1;
        return await work({ fence, signal: neverAborted, canBeLost: false });
      } finally {
        release();
        if (tails.get(sessionKey) === tail) tails.delete(sessionKey);
      }
    },
  };
}

/** How long a caller refused for a session with a full queue is told to wait before trying again, in ms. */
export const SESSION_BUSY_RETRY_AFTER_MS = 1_000;

/** Session locks that also count the turns of this process waiting behind another turn of their session. */
export interface CountedSessionLocks extends SessionLocks {
  waiting(): number;
}

/**
 * At most `maxWaiting()` holders wait for one session key behind the one running, in this process; a further one is
 * refused at once (`unavailable`, retryAfterMs) before it waits, so a client cannot queue turns without bound.
 */
export function limitSessionWaiters(locks: SessionLocks, maxWaiting: () => number): CountedSessionLocks {
  // Holders and waiters per key; a key is removed when its last one finishes so the map does not grow.
  const queued = new Map<string, number>();
  // Holders and waiters of every key: one per key runs, the rest wait.
  let inLine = 0;
  return {
    async run(sessionKey, work) {
      const ahead = queued.get(sessionKey) ?? 0;
      const limit = maxWaiting();
      if (ahead > limit) throw sessionBusy(sessionKey, limit, SESSION_BUSY_RETRY_AFTER_MS);
      queued.set(sessionKey, ahead + 1);
      inLine += 1;
      try {
        return await locks.run(sessionKey, work);
      } finally {
        inLine -= 1;
        const left = (queued.get(sessionKey) ?? 1) - 1;
        if (left > 0) queued.set(sessionKey, left);
        else queued.delete(sessionKey);
      }
    },
    waiting: () => inLine - queued.size,
  };
}
