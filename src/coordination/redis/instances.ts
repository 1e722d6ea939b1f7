// Instance liveness in Redis: each replica keeps a key alive by heartbeat; a replica whose key lapsed is gone.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Instances } from '../instances.js';
import type { RedisLink } from './connection.js';

export interface RedisInstances extends Instances {
  /** Writes the liveness key and starts the heartbeat; resolves once this instance counts as alive. */
  start(): Promise<void>;
  /** Stops the heartbeat and deletes the key, so other replicas take over this instance's runs at once. */
  stop(): Promise<void>;
}

export interface RedisInstancesOptions {
  /** How long the key lives without a heartbeat, in ms. */
  livenessTtlMs: number;
  /** How often the key is renewed, in ms. */
  heartbeatMs: number;
  currentId?: string;
}

/**
 * The TTL runs on the Redis server's clock, so replicas with skewed clocks still agree on who is alive. A
 * heartbeat that finds its key already gone logs a warning: this instance was counted dead for a while (stalled
 * longer than the TTL) and its runs may have been marked orphaned.
 */
export function createRedisInstances(link: RedisLink, log: Logger, options: RedisInstancesOptions): RedisInstances {
  const currentId = options.currentId ?? randomUUID();
  const instanceKey = (id: string) => link.key(`instance:${id}`);
  let timer: NodeJS.Timeout | undefined;

  async function beat(): Promise<void> {
    const previous = await link.commands.set(
      instanceKey(currentId),
      String(Date.now()),
      'PX',
      options.livenessTtlMs,
      'GET',
    );
    if (previous === null && timer !== undefined)
      log.warn({ instanceId: currentId }, 'liveness key had lapsed: other replicas counted this instance as gone');
  }

  return {
    currentId,
    async isAlive(instanceId) {
      if (instanceId === currentId) return true;
      return (await link.commands.exists(instanceKey(instanceId))) === 1;
    },
    async start() {
      await beat();
      timer = setInterval(() => {
        beat().catch((error: unknown) => log.warn({ err: error }, 'liveness heartbeat failed'));
      }, options.heartbeatMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      // Unreachable, the key lapses with its TTL instead: other replicas see this one gone a few seconds later.
      if (link.isConnected()) await link.commands.del(instanceKey(currentId));
    },
  };
}
