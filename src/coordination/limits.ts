// Every timing of the shared (Redis) coordination, with its unit; each can be overridden through RedisCoordinationOptions.

export const COORDINATION_LIMITS = {
  /**
   * An instance's liveness key lives this long without a heartbeat, in ms. Issue 16: another replica must see a
   * dead one within 15 s; the key lapses within this time and orphan sweeps run every `orphanSweepMs`, so
   * livenessTtlMs + orphanSweepMs stays below 15 000.
   */
  livenessTtlMs: 10_000,
  /**
   * How often a live instance renews its liveness key, in ms. A fifth of the TTL, so a replica stalled (GC,
   * busy event loop, Redis failover) for up to 8 s is still counted alive: "never while it lives".
   */
  heartbeatMs: 2_000,
  /** How often each replica looks for runs whose owning instance has gone, in ms. */
  orphanSweepMs: 3_000,
  /** A session lock lapses this long after its last renewal, in ms (a crashed holder frees the session by then). */
  lockTtlMs: 30_000,
  /** How often a held session lock is renewed, in ms (a third of its TTL: two renewals may fail before it lapses). */
  lockRenewMs: 10_000,
  /** First and largest pause between attempts to take a session lock another replica holds, in ms. */
  lockRetryMinMs: 10,
  lockRetryMaxMs: 250,
  /** Entries one blocking read of the event stream takes at most. */
  eventReadBatch: 200,
  /**
   * Entries the shared event stream keeps beyond the replay capacity (gateway.sseReplayEvents), so a replica
   * whose read falls behind a burst still finds every event it has not read instead of losing the trimmed ones.
   */
  eventStreamSlack: 1_000,
};

export type CoordinationTimings = typeof COORDINATION_LIMITS;
