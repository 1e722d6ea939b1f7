// A per-session async lock: work on one session key runs one at a time, in arrival order; keys never block each other.

export interface SessionLocks {
  /** Runs `work` once every earlier holder of `sessionKey` has finished (resolved or thrown). */
  run<T>(sessionKey: string, work: () => Promise<T>): Promise<T>;
  /** Whether some work holds or waits for `sessionKey`. */
  isBusy(sessionKey: string): boolean;
}

/**
 * Shared by every surface that runs turns or rewrites a transcript (session.send, spawn, reset_conversation,
 * compaction), so a reset never interleaves with a live turn on the same session. app.ts builds one and hands
 * it to each service that needs it.
 */
export function createSessionLocks(): SessionLocks {
  // The tail of each key's queue; removed when the last holder finishes so the map does not grow.
  const tails = new Map<string, Promise<void>>();
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
        return await work();
      } finally {
        release();
        if (tails.get(sessionKey) === tail) tails.delete(sessionKey);
      }
    },
    isBusy: (sessionKey) => tails.has(sessionKey),
  };
}
