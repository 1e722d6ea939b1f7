// The capability-denial breaker: counts consecutive denials per run tree and trips the run-control breaker at the threshold.

/** Run control's side of the breaker (implemented by src/runs as `runControl`); passed in by app.ts. */
export interface DenialBreaker {
  /** Aborts the run tree after N consecutive denials; recorded as a denial-breaker trip health signal, never as a session end reason. */
  tripDenialBreaker(rootRunId: string, detail: { agentId: string; consecutiveDenials: number }): Promise<void>;
}

export interface DenialCounter {
  /** Counts a denial in the tree; resolves to the count when it reached `threshold` (and the count starts over), else undefined. */
  denied(rootRunId: string, threshold: number): number | undefined;
  /** Any call let through in the tree ends the run of denials. */
  allowed(rootRunId: string): void;
}

/** Trees tracked at most; the least recently denied are forgotten first. */
export const DENIAL_COUNTER_MAX_TREES = 10_000;

export function createDenialCounter(maxTrees = DENIAL_COUNTER_MAX_TREES): DenialCounter {
  const counts = new Map<string, number>();
  return {
    denied(rootRunId, threshold) {
      const count = (counts.get(rootRunId) ?? 0) + 1;
      // Re-inserted so the Map's order is least recently denied first.
      counts.delete(rootRunId);
      if (count >= threshold) return count;
      counts.set(rootRunId, count);
      if (counts.size > maxTrees) {
        const oldest = counts.keys().next();
        if (oldest.done !== true) counts.delete(oldest.value);
      }
      return undefined;
    },
    allowed(rootRunId) {
      counts.delete(rootRunId);
    },
  };
}
