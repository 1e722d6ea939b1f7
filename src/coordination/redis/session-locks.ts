// Session locks across replicas: a Redis key per busy session naming its holder and fence, renewed while held.
import type { Logger } from 'pino';
import { z } from 'zod';
import { coordinationClosed, sessionLockLost } from '../../errors.js';
import { createSessionLocks, type LockHold, type SessionLocks } from '../session-locks.js';
import type { RedisLink } from './connection.js';
import { defineScript } from './scripts.js';

// KEYS[1] the session's lock; KEYS[2] the one fence counter of all session locks; ARGV[1] the holder; ARGV[2]
// TTL ms. Resolves to the new fence, or 0 when another holder has the lock.
const ACQUIRE = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local fence = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '/' .. fence, 'PX', ARGV[2])
return fence
`);

// ARGV[1] the holder's value (holder/fence), so a lapsed holder can neither extend nor delete its successor's lock.
const RENEW = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

const RELEASE = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

const count = z.number().int().nonnegative();

export interface RedisSessionLocksOptions {
  /** This replica's instance id, written into each lock it holds. */
  holderId: string;
  /** A lock lapses this long after its last renewal, in ms. */
  lockTtlMs: number;
  /** How often a held lock is renewed, in ms. */
  lockRenewMs: number;
  /** First and largest pause between attempts on a lock another replica holds, in ms. */
  lockRetryMinMs: number;
  lockRetryMaxMs: number;
}

export interface RedisSessionLocks extends SessionLocks {
  /** Stops taking locks: waiting callers get `unavailable`; held ones are released by their holders. */
  close(): void;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Work on one replica queues in process first (arrival order, one Redis waiter per session per replica); the
 * head of that queue then polls Redis until the session is free. Across replicas the order is whoever asks
 * first after a release, not arrival order.
 */
export function createRedisSessionLocks(
  link: RedisLink,
  log: Logger,
  options: RedisSessionLocksOptions,
): RedisSessionLocks {
  const local = createSessionLocks();
  const fenceKey = link.key('lockfence');
  const lockKey = (sessionKey: string) => link.key(`lock:${sessionKey}`);
  let isClosed = false;

  async function acquire(sessionKey: string): Promise<number> {
    let waitMs = options.lockRetryMinMs;
    for (;;) {
      if (isClosed) throw coordinationClosed();
      const fence = count.parse(
        await ACQUIRE(link.commands, [lockKey(sessionKey), fenceKey], [options.holderId, options.lockTtlMs]),
      );
      if (fence > 0) return fence;
      await pause(waitMs);
      waitMs = Math.min(options.lockRetryMaxMs, waitMs * 2);
    }
  }

  /** Renews until stopped; aborts the hold once the lock is gone or could not be renewed for a whole TTL. */
  function keepRenewed(sessionKey: string, value: string, lost: AbortController): () => void {
    let renewedAt = Date.now();
    const timer = setInterval(() => {
      RENEW(link.commands, [lockKey(sessionKey)], [value, options.lockTtlMs]).then(
        (reply) => {
          if (count.parse(reply) === 1) renewedAt = Date.now();
          else lose('taken over or lapsed');
        },
        (error: unknown) => {
          log.warn({ err: error, sessionKey }, 'could not renew a session lock');
          if (Date.now() - renewedAt >= options.lockTtlMs) lose('not renewed within its TTL');
        },
      );
    }, options.lockRenewMs);
    timer.unref();
    function lose(reason: string): void {
      if (lost.signal.aborted) return;
      log.warn({ sessionKey, reason }, 'session lock lost while its work ran');
      lost.abort(sessionLockLost(sessionKey));
      clearInterval(timer);
    }
    return () => clearInterval(timer);
  }

  return {
    run(sessionKey, work) {
      return local.run(sessionKey, async () => {
        const fence = await acquire(sessionKey);
        const value = `${options.holderId}/${fence}`;
        const lost = new AbortController();
        const stopRenewing = keepRenewed(sessionKey, value, lost);
        const hold: LockHold = { fence, signal: lost.signal, canBeLost: true };
        try {
          return await work(hold);
        } finally {
          stopRenewing();
          // A failed release only delays the next holder until the TTL; the work's own outcome stands.
          await RELEASE(link.commands, [lockKey(sessionKey)], [value]).catch((error: unknown) =>
            log.warn({ err: error, sessionKey }, 'could not release a session lock; it lapses with its TTL'),
          );
        }
      });
    },
    close() {
      isClosed = true;
    },
  };
}
