// The HTTP rate-limit window as one atomic Redis step: increment, open the window on the first hit, report its TTL.
import type { RateCounter } from '../types.js';
import { z } from 'zod';
import { coordinationUnreachable } from '../../errors.js';
import type { RedisLink } from './connection.js';
import { defineScript } from './scripts.js';

// KEYS[1] the counter; ARGV[1] the window in ms. A counter left without a TTL (never expected) gets one, so a
// key can never count forever.
const HIT = defineScript(`
local count = redis.call('INCR', KEYS[1])
local ttl = -1
if count > 1 then ttl = redis.call('PTTL', KEYS[1]) end
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`);

const hitReply = z.tuple([z.number().int(), z.number().int()]);

export function createRedisRateCounter(link: RedisLink): RateCounter {
  return {
    async hit(key, windowMs) {
      // Not connected: fail at once so the caller counts locally, instead of waiting for a reconnect per request.
      if (!link.isConnected()) throw coordinationUnreachable();
      const [count, ttlMs] = hitReply.parse(await HIT(link.commands, [link.key(`rate:${key}`)], [windowMs]));
      return { count, ttlMs };
    },
  };
}
