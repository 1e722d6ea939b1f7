// Operator denials remembered per session, tool and argument digest, so the same call is refused at once for a while.

export interface DenialCache {
  /** The cached denial's reason while it is fresh, else undefined. */
  find(sessionKey: string, toolName: string, argsDigest: string, now: number): string | undefined;
  remember(sessionKey: string, toolName: string, argsDigest: string, reason: string, expiresAt: number): void;
  /** Forgets the session's denials (session.reset); resolves to how many. */
  clearSession(sessionKey: string): number;
  clear(): number;
}

/** Entries kept at most; past it the oldest go first, so a flood of distinct denied calls cannot grow memory. */
export const DENIAL_CACHE_MAX_ENTRIES = 10_000;

export function createDenialCache(maxEntries = DENIAL_CACHE_MAX_ENTRIES): DenialCache {
  // Keyed by session, then tool and digest, so a reset drops one session's entries without scanning the rest.
  const bySession = new Map<string, Map<string, { reason: string; expiresAt: number }>>();
  let size = 0;
  const callKey = (toolName: string, argsDigest: string) => `${toolName}\u0000${argsDigest}`;

  function evictOldest(): void {
    for (const [sessionKey, entries] of bySession) {
      for (const key of entries.keys()) {
        entries.delete(key);
        size -= 1;
        if (entries.size === 0) bySession.delete(sessionKey);
        return;
      }
    }
  }

  return {
    find(sessionKey, toolName, argsDigest, now) {
      const entries = bySession.get(sessionKey);
      const key = callKey(toolName, argsDigest);
      const entry = entries?.get(key);
      if (entries === undefined || entry === undefined) return undefined;
      if (entry.expiresAt > now) return entry.reason;
      entries.delete(key);
      size -= 1;
      if (entries.size === 0) bySession.delete(sessionKey);
      return undefined;
    },
    remember(sessionKey, toolName, argsDigest, reason, expiresAt) {
      let entries = bySession.get(sessionKey);
      if (entries === undefined) {
        entries = new Map();
        bySession.set(sessionKey, entries);
      }
      const key = callKey(toolName, argsDigest);
      if (!entries.has(key)) size += 1;
      entries.set(key, { reason, expiresAt });
      while (size > maxEntries) evictOldest();
    },
    clearSession(sessionKey) {
      const count = bySession.get(sessionKey)?.size ?? 0;
      bySession.delete(sessionKey);
      size -= count;
      return count;
    },
    clear() {
      const count = size;
      bySession.clear();
      size = 0;
      return count;
    },
  };
}
