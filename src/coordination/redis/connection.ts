// The Redis connections of one replica: commands, pub/sub subscriptions and blocking stream reads each need their own.
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

export interface RedisLink {
  /** Ordinary commands and scripts. */
  readonly commands: Redis;
  /** In subscriber mode once anything subscribes; a subscribed connection runs no other command. */
  readonly subscriber: Redis;
  /** Blocking XREAD, which would hold up every other command queued behind it on a shared connection. */
  readonly reader: Redis;
  /** Prepended to every key and channel name, so several gateways can share one Redis. */
  key(name: string): string;
  /** Whether the command connection is up; cleanup that cannot reach Redis is skipped rather than waited for. */
  isConnected(): boolean;
  close(): Promise<void>;
}

export interface RedisLinkOptions {
  url: string;
  keyPrefix: string;
  log: Logger;
}

/** Longest a request may wait on one Redis command (a rate count, a lock step, a replay read) during an outage. */
export const COMMAND_TIMEOUT_MS = 3_000;

/**
 * The reader never queues a read for later. ioredis fails queued commands only when a socket closes; a connection
 * waiting to reconnect has none, so disconnecting it then leaves them pending for good, and shutdown, which waits
 * for the read loop, would hang. A read asked for while Redis is away fails at once, and one waiting on Redis
 * fails as soon as the connection drops; the read loop retries from the id it had reached, so nothing is missed.
 */
const READER_OPTIONS = { maxRetriesPerRequest: 0, enableOfflineQueue: false };

/**
 * Connects at once and throws when Redis cannot be reached, so a replica configured for Redis refuses to start
 * rather than running alone with local limits. Later outages are retried by ioredis; a command fails after one
 * retry instead of waiting in a queue, so a request is never held up for the whole outage.
 */
export async function connectRedis({ url, keyPrefix, log }: RedisLinkOptions): Promise<RedisLink> {
  const open = (role: string, overrides: RedisOptions = {}): Redis => {
    const client = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      connectionName: `agent-gateway:${role}`,
      ...overrides,
    });
    // ioredis reports connection errors as events; without a listener each one would be an uncaught error.
    client.on('error', (error: Error) => log.warn({ err: error, role }, 'redis connection error'));
    return client;
  };
  // A command waits at most this long, whatever state the connection is in; the reader's XREAD blocks by design.
  const commands = open('commands', { commandTimeout: COMMAND_TIMEOUT_MS });
  const subscriber = open('subscriber');
  const reader = open('reader', READER_OPTIONS);
  const clients = [commands, subscriber, reader];
  try {
    await Promise.all(clients.map((client) => client.connect()));
  } catch (error) {
    for (const client of clients) client.disconnect();
    throw error;
  }
  return {
    commands,
    subscriber,
    reader,
    key: (name) => `${keyPrefix}${name}`,
    isConnected: () => commands.status === 'ready',
    async close() {
      // The reader may be blocked in XREAD, which QUIT would wait for; it is cut instead. The subscriber has no
      // reply worth waiting for, and QUIT to a Redis that hangs would never be answered on it. QUIT to a Redis that
      // is down would wait for a reconnect first, so the command connection is then cut too; otherwise its QUIT
      // lets the commands already sent finish, within the command timeout.
      reader.disconnect();
      subscriber.disconnect();
      if (commands.status !== 'ready') commands.disconnect();
      else await commands.quit().catch(() => undefined);
    },
  };
}
