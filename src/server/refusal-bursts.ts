// security:warn for bursts of refused input: one source (a client address, a token's socket) refused this many times
// within a window is told once per window; the sources remembered are bounded.

/** Refusals of one source within REFUSAL_BURST_WINDOW_MS that make a burst. */
export const REFUSAL_BURST_THRESHOLD = 20;
export const REFUSAL_BURST_WINDOW_MS = 60_000;
/** Sources counted at once; past it the oldest window is forgotten. */
export const REFUSAL_BURST_MAX_SOURCES = 10_000;

export interface RefusalBurstsDeps {
  /** Called once per window for a source whose refusals reached the threshold. */
  onBurst: (source: string, refusals: number) => void;
  now: () => number;
  threshold?: number;
  windowMs?: number;
  maxSources?: number;
}

export interface RefusalBursts {
  /** Counts one refusal of `source` (an address or a client id, never a secret). */
  note(source: string): void;
}

export function createRefusalBursts({
  onBurst,
  now,
  threshold = REFUSAL_BURST_THRESHOLD,
  windowMs = REFUSAL_BURST_WINDOW_MS,
  maxSources = REFUSAL_BURST_MAX_SOURCES,
}: RefusalBurstsDeps): RefusalBursts {
  /** Insertion order is window-start order: a window that ended is deleted and counted again from now. */
  const windows = new Map<string, { startedAt: number; count: number }>();
  return {
    note(source) {
      const at = now();
      let window = windows.get(source);
      if (window === undefined || at - window.startedAt >= windowMs) {
        windows.delete(source);
        if (windows.size >= maxSources) {
          const oldest = windows.keys().next();
          if (oldest.done !== true) windows.delete(oldest.value);
        }
        window = { startedAt: at, count: 0 };
        windows.set(source, window);
      }
      window.count += 1;
      if (window.count === threshold) onBurst(source, window.count);
    },
  };
}
