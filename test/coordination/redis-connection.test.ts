// A replica's Redis connections when Redis goes away: a blocking read never waits for a Redis that is gone, so
// closing the replica cannot hang on one (the /api/events reader is stopped this way at shutdown).
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { connectRedis, type RedisLink } from '../../src/coordination/redis/connection.js';
import { createLogger } from '../../src/obs/logger.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const log = createLogger({ level: 'silent' });

/** Resolves once the connection has lost Redis and waits to reconnect (ioredis announces it on the next tick). */
const waitingToReconnect = (client: Redis) =>
  new Promise<void>((resolve) => client.once('reconnecting', () => resolve()));

describe('redis connections of a replica whose Redis is gone', () => {
  let redis: RedisServer | undefined;
  let link: RedisLink | undefined;
  /** A redis-server stopped by a test, continued before anything else is cleaned up. */
  let stoppedPid: number | undefined;
  afterEach(async () => {
    if (stoppedPid !== undefined) process.kill(stoppedPid, 'SIGCONT');
    stoppedPid = undefined;
    await link?.close();
    await redis?.stop();
  });

  it('fails a blocking read asked for while the reader waits to reconnect, and closing then ends it', async () => {
    redis = await startRedisServer();
    link = await connectRedis({ url: redis.url, keyPrefix: 'conn:', log });
    const reader = link.reader;
    const lost = waitingToReconnect(reader);
    await redis.stop();
    await lost;
    const read = reader.xread('BLOCK', 0, 'STREAMS', link.key('events'), '$');
    const outcome = read.then(
      () => 'answered',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    await link.close();
    expect(await outcome).not.toBe('answered');
  });

  it('fails a blocking read that was waiting on Redis when Redis went away, even when the reader is closed before it reconnects', async () => {
    redis = await startRedisServer();
    link = await connectRedis({ url: redis.url, keyPrefix: 'conn:', log });
    const reader = link.reader;
    const read = reader.xread('BLOCK', 0, 'STREAMS', link.key('events'), '$');
    const outcome = read.then(
      () => 'answered',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    const lost = waitingToReconnect(reader);
    await redis.stop();
    await lost;
    await link.close();
    expect(await outcome).not.toBe('answered');
  });

  it('closes while its Redis hangs (stopped, connections open but never answered)', async () => {
    redis = await startRedisServer();
    link = await connectRedis({ url: redis.url, keyPrefix: 'conn:', log });
    const pid = Number(/process_id:(\d+)/.exec(await link.commands.info('server'))?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGSTOP');
    stoppedPid = pid;
    await link.close();
    link = undefined;
  });
});
