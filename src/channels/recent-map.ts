// A bounded map of the most recent entries (two generations swapped wholesale, as learning's recent-map does): the
// chat keys `/new` moved and the reply ids reactions point at.
export interface RecentMap<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
}

/** Holds between max / 2 and max entries: once the newer generation holds max / 2, the older one is dropped. */
export function createRecentMap<K, V>(max: number): RecentMap<K, V> {
  let current = new Map<K, V>();
  let previous = new Map<K, V>();
  return {
    get: (key) => current.get(key) ?? previous.get(key),
    set(key, value) {
      previous.delete(key);
      current.set(key, value);
      if (current.size >= max / 2) {
        previous = current;
        current = new Map();
      }
    },
  };
}
