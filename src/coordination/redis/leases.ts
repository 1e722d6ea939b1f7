// Named leader leases in Redis: one key per lease holding the holder's instance id, with the lease's TTL.
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Leases } from '../leases.js';
import type { RedisLink } from './connection.js';
import { defineScript } from './scripts.js';

// Each step compares the holder before it changes anything, so an instance whose lease lapsed and was taken
// over can neither extend nor delete the new holder's lease. KEYS[1] the lease; ARGV[1] the holder; ARGV[2] TTL ms.
const ACQUIRE = defineScript(`
local holder = redis.call('GET', KEYS[1])
if holder == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);

const RENEW = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);

const RELEASE = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

const flag = z.union([z.literal(0), z.literal(1)]);

/**
 * `holderId` is this instance's id (Instances.currentId), so the holder can be told apart after a restart. A
 * release that cannot reach Redis is logged, not thrown: the lease lapses with its TTL, and shutdown goes on.
 */
export function createRedisLeases(link: RedisLink, holderId: string, log: Logger): Leases {
  const leaseKey = (name: string) => link.key(`lease:${name}`);
  return {
    async acquire(name, ttlMs) {
      return flag.parse(await ACQUIRE(link.commands, [leaseKey(name)], [holderId, ttlMs])) === 1;
    },
    async renew(name, ttlMs) {
      return flag.parse(await RENEW(link.commands, [leaseKey(name)], [holderId, ttlMs])) === 1;
    },
    async release(name) {
      if (!link.isConnected()) return log.warn({ lease: name }, 'redis is unreachable; the lease lapses with its TTL');
      await RELEASE(link.commands, [leaseKey(name)], [holderId]).catch((error: unknown) =>
        log.warn({ err: error, lease: name }, 'could not release a lease; it lapses with its TTL'),
      );
    },
  };
}
