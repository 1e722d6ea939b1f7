// A map that keeps the most recent entries: two generations swapped wholesale, so forgetting the oldest costs nothing
// per insert (deleting a Map's oldest key one at a time leaves deleted slots its iteration must skip).
export interface RecentMap<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
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
    delete(key) {
      current.delete(key);
      previous.delete(key);
    },
  };
}
