// Bounds of the SQLite session write queue: how much transcript and usage data (and its waiting callers) may wait for its commit.

export interface SessionWriteLimits {
  /** Queued transcript messages (a usage record counts as one) at which the queue is written at once, not a tick later. */
  maxQueuedMessages: number;
  /**
   * Queued characters (UTF-16 code units of message content plus tool data; bytes for ASCII text) at which the queue
   * is written at once. Counted from string lengths, so the hot path never encodes a message just to measure it.
   */
  maxQueuedChars: number;
}

/** A batch this large is a few milliseconds of one transaction; beyond it, waiting longer saves nothing measurable. */
export const DEFAULT_SESSION_WRITE_LIMITS: SessionWriteLimits = {
  maxQueuedMessages: 1_024,
  maxQueuedChars: 1_048_576,
};
