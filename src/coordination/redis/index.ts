// Coordination through one Redis: shared rate counters, session locks, liveness, leases, the event feed and peer channels.
import type { EventBus } from '../../events/index.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { coordinationUnreachable } from '../../errors.js';
import type { Coordination } from '../coordination.js';
import type { CoordinationTimings } from '../limits.js';
import { createRedisBudgetLedger } from './budget-ledger.js';
import { connectRedis } from './connection.js';
import { createRedisEventFeed } from './event-feed.js';
import { createRedisInstances } from './instances.js';
import { createRedisLeases } from './leases.js';
import { createPeerChannels } from './peer-channels.js';
import { createRedisRateCounter } from './rate-counter.js';
import { createRedisSessionLocks } from './session-locks.js';

export interface RedisCoordinationOptions {
  url: string;
  keyPrefix: string;
  events: EventBus;
  /** Events /api/events keeps for replay (gateway.sseReplayEvents). */
  replayEvents: number;
  log: Logger;
  timings: CoordinationTimings;
  instanceId?: string;
}

const notificationMessage = z.strictObject({
  clientId: z.string().nullable(),
  method: z.string().min(1),
  params: z.unknown(),
  audience: z.literal('admins').optional(),
});
const retiredTokenMessage = z.strictObject({ clientId: z.string().min(1) });
const jobsChangedMessage = z.strictObject({});
const runStopMessage = z.strictObject({
  runId: z.string().min(1),
  rootRunId: z.string().min(1),
  reason: z.enum(['killed', 'revoked']),
  by: z.string(),
});

/** Connects (throws when Redis cannot be reached) and starts this replica's heartbeat before it resolves. */
export async function createRedisCoordination(options: RedisCoordinationOptions): Promise<Coordination> {
  const { log, timings } = options;
  const link = await connectRedis({ url: options.url, keyPrefix: options.keyPrefix, log });
  try {
    const instances = createRedisInstances(link, log, {
      ...timings,
      ...(options.instanceId === undefined ? {} : { currentId: options.instanceId }),
    });
    const locks = createRedisSessionLocks(link, log, { ...timings, holderId: instances.currentId });
    const channels = createPeerChannels(link, instances.currentId, log);
    const [notifications, retiredTokens, jobChanges, runStops] = await Promise.all([
      channels.channel('notify', notificationMessage),
      channels.channel('tokens-retired', retiredTokenMessage),
      channels.channel('jobs-changed', jobsChangedMessage),
      channels.channel('run-stops', runStopMessage),
    ]);
    const eventFeed = createRedisEventFeed(link, log, {
      events: options.events,
      capacity: options.replayEvents,
      readBatch: timings.eventReadBatch,
      streamSlack: timings.eventStreamSlack,
    });
    await instances.start();
    return {
      kind: 'redis',
      locks,
      instances,
      leases: createRedisLeases(link, instances.currentId, log),
      rateCounter: createRedisRateCounter(link),
      eventFeed,
      notifications,
      retiredTokens,
      jobChanges,
      runStops,
      orphanSweepMs: timings.orphanSweepMs,
      budgetLedger: (deps) => createRedisBudgetLedger(link, log, deps),
      async ping() {
        // A command on a connection that is down would wait for the reconnect; not being connected is the answer.
        if (!link.isConnected()) throw coordinationUnreachable();
        await link.commands.ping();
      },
      async close() {
        locks.close();
        await eventFeed.stop();
        await instances.stop().catch((error: unknown) => log.warn({ err: error }, 'could not remove the liveness key'));
        await link.close();
      },
    };
  } catch (error) {
    await link.close();
    throw error;
  }
}
