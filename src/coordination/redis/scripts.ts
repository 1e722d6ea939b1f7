// Runs a Lua script by its SHA1 (EVALSHA), loading it with EVAL only when the server does not have it yet.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export type RedisScript = (
  redis: Redis,
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown>;

const isNoScript = (error: unknown): boolean => error instanceof Error && error.message.startsWith('NOSCRIPT');

/**
 * A script runs atomically on the server: no other client's command interleaves with it, which is what makes
 * each counter, lease and lock operation below a single step for every replica.
 */
export function defineScript(lua: string): RedisScript {
  const sha = createHash('sha1').update(lua, 'utf8').digest('hex');
  return async (redis, keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      // A restarted or flushed server has lost its script cache; EVAL loads it again under the same SHA1.
      if (!isNoScript(error)) throw error;
      return redis.eval(lua, keys.length, ...keys, ...args);
    }
  };
}
