// The coordination contracts other folders name without importing a backend: the shared rate counter.

export interface WindowCount {
  /** Requests counted in the key's current window, this one included. */
  count: number;
  /** Time until the window closes and the count starts again, in ms. */
  ttlMs: number;
}

/**
 * The same window as @fastify/rate-limit's in-process store: a key's window opens with its first request and
 * lasts `windowMs`; every request is counted, refused ones too, and the count starts again when it closes.
 */
export interface RateCounter {
  hit(key: string, windowMs: number): Promise<WindowCount>;
}
