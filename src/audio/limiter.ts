// Bounds how many local decoder and recogniser processes run at once, so a burst of calls cannot starve the process.

export interface ProcessLimiter {
  /** Runs `task` once a slot is free; a caller aborted while waiting leaves the queue with the signal's reason. */
  run<T>(task: () => Promise<T>, signal: AbortSignal): Promise<T>;
}

interface Waiter {
  start: () => void;
}

export function createProcessLimiter(maxConcurrent: () => number): ProcessLimiter {
  let running = 0;
  const waiting: Waiter[] = [];

  function release(): void {
    running -= 1;
    const next = waiting.shift();
    if (next !== undefined) next.start();
  }

  function acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (running < maxConcurrent()) {
      running += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          signal.removeEventListener('abort', onAbort);
          running += 1;
          resolve();
        },
      };
      function onAbort(): void {
        const index = waiting.indexOf(waiter);
        if (index !== -1) waiting.splice(index, 1);
        reject(signal.reason);
      }
      signal.addEventListener('abort', onAbort, { once: true });
      waiting.push(waiter);
    });
  }

  return {
    async run(task, signal) {
      await acquire(signal);
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
