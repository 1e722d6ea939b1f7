// Runs async work one at a time per key (turns of one session never interleave their transcript writes).

export interface KeyedLock {
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  return {
    async run(key, work) {
      const previous = tails.get(key) ?? Promise.resolve();
      const current = previous.then(work, work);
      const settled = current.catch(() => undefined);
      tails.set(key, settled);
      try {
        return await current;
      } finally {
        // The last turn of a key clears its entry so the map does not grow with every session ever seen.
        if (tails.get(key) === settled) tails.delete(key);
      }
    },
  };
}
