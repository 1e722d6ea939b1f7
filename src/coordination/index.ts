// Coordination between gateway instances: session locks, liveness, leader leases, shared rate counters, the
// /api/events feed and peer channels; in process by default, through Redis when `coordination.kind` is redis.
import type { EventBus } from '../events/index.js';
import type { Logger } from 'pino';
import type { CoordinationConfig } from '../config/index.js';
import type { Coordination } from './coordination.js';
import { createLocalInstances } from './instances.js';
import { createLocalLeases } from './leases.js';
import { COORDINATION_LIMITS, type CoordinationTimings } from './limits.js';
import { createLocalPeerChannel } from './peer-channel.js';
import { createLocalRateCounter } from './rate-counter.js';
import { createSessionLocks } from './session-locks.js';

export type { Coordination, JobsChanged, PeerNotification, RetiredToken, RunStop } from './coordination.js';
export type { EventFeed, FeedEntry, FeedEvent } from './event-feed.js';
export { createLocalInstances, type Instances } from './instances.js';
export { createLocalLeases } from './leases.js';
export { createPeerBridge, type PeerBridge } from './peer-bridge.js';
export { COORDINATION_LIMITS, type CoordinationTimings } from './limits.js';
export type { PeerChannel } from './peer-channel.js';
export { createLocalRateCounter } from './rate-counter.js';
export {
  createSessionLocks,
  limitSessionWaiters,
  type CountedSessionLocks,
  type LockHold,
  type SessionLocks,
} from './session-locks.js';

/** One process: in-memory locks, only this process counts as alive, and it holds every lease. */
export function createLocalCoordination(): Coordination {
  return {
    kind: 'local',
    locks: createSessionLocks(),
    instances: createLocalInstances(),
    leases: createLocalLeases(),
    rateCounter: createLocalRateCounter(),
    notifications: createLocalPeerChannel(),
    retiredTokens: createLocalPeerChannel(),
    jobChanges: createLocalPeerChannel(),
    runStops: createLocalPeerChannel(),
    close: async () => {},
  };
}

export interface CoordinationDeps {
  config: CoordinationConfig;
  /** This replica's bus: its events are shared on the /api/events feed. */
  events: EventBus;
  /** Events /api/events keeps for replay (gateway.sseReplayEvents). */
  replayEvents: number;
  log: Logger;
  /** Tests shorten the heartbeat, TTL and sweep periods; production uses COORDINATION_LIMITS. */
  timings?: Partial<CoordinationTimings>;
}

/** The coordination the config asks for; for redis it connects first and throws when Redis cannot be reached. */
export async function createCoordination({
  config,
  events,
  replayEvents,
  log,
  timings,
}: CoordinationDeps): Promise<Coordination> {
  if (config.kind === 'local') return createLocalCoordination();
  // Loaded only when configured: a single-node gateway never loads ioredis.
  const { createRedisCoordination } = await import('./redis/index.js');
  return createRedisCoordination({
    url: config.url,
    keyPrefix: config.keyPrefix,
    events,
    replayEvents,
    log,
    timings: { ...COORDINATION_LIMITS, ...timings },
  });
}
