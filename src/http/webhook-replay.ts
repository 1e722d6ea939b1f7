// Remembers the signatures of accepted webhook deliveries for 10 minutes (DESIGN §3 "webhook replay"), in bounded memory.

/** DESIGN §3: a signature accepted within this window is a duplicate. Twice the timestamp tolerance, so a
 * timestamped delivery cannot be replayed at all: by the time it is forgotten, its timestamp is refused. */
export const REPLAY_WINDOW_MS = 600_000;

/**
 * At most this many signatures are remembered: a 128-character hex key plus a number per Map entry, about 2 MB
 * at the most. Only deliveries with a valid signature are remembered, so filling the cache takes the secret; past
 * the bound the oldest signature is forgotten early, which only a sender delivering more than about 16 events a
 * second would notice.
 */
export const REPLAY_CACHE_MAX_ENTRIES = 10_000;

export interface ReplayCacheOptions {
  now: () => number;
  windowMs?: number;
  maxEntries?: number;
}

export interface ReplayCache {
  /** Whether `key` was remembered within the window. */
  has(key: string): boolean;
  remember(key: string): void;
  readonly size: number;
}

export function createReplayCache({
  now,
  windowMs = REPLAY_WINDOW_MS,
  maxEntries = REPLAY_CACHE_MAX_ENTRIES,
}: ReplayCacheOptions): ReplayCache {
  // Insertion order is acceptance order, and every entry lives equally long, so the first entry is always the
  // one to expire or evict next: pruning is amortised O(1) per delivery.
  const acceptedAt = new Map<string, number>();

  function prune(at: number): void {
    for (const [key, time] of acceptedAt) {
      if (at - time < windowMs && acceptedAt.size <= maxEntries) return;
      acceptedAt.delete(key);
    }
  }

  return {
    has(key) {
      const time = acceptedAt.get(key);
      return time !== undefined && now() - time < windowMs;
    },
    remember(key) {
      const at = now();
      acceptedAt.delete(key);
      acceptedAt.set(key, at);
      prune(at);
    },
    get size() {
      return acceptedAt.size;
    },
  };
}
