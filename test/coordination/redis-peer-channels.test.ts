// Peer channels: a message published on one replica reaches every other replica's listeners, never its own.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PeerNotification, RetiredToken } from '../../src/coordination/index.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startReplica, type Replica } from './redis-fixture.js';

describe('redis peer channels', () => {
  let redis: RedisServer;
  let raw: Redis;
  let a: Replica;
  let b: Replica;
  let c: Replica;
  beforeAll(async () => {
    redis = await startRedisServer();
    raw = new Redis(redis.url);
    [a, b, c] = await Promise.all([startReplica(redis.url), startReplica(redis.url), startReplica(redis.url)]);
  });
  afterAll(async () => {
    await Promise.all([a.coordination.close(), b.coordination.close(), c.coordination.close()]);
    raw.disconnect();
    await redis.stop();
  });

  it('delivers a notification to every other replica and not back to the sender', async () => {
    const seen: Record<string, PeerNotification[]> = { a: [], b: [], c: [] };
    const stops = [
      a.coordination.notifications.subscribe((message) => seen.a?.push(message)),
      b.coordination.notifications.subscribe((message) => seen.b?.push(message)),
      c.coordination.notifications.subscribe((message) => seen.c?.push(message)),
    ];
    const message = {
      clientId: 'rpc-client',
      method: 'session.completed',
      params: { runId: 'run-1', result: { response: 'hi' } },
    };
    await a.coordination.notifications.publish(message);
    await a.coordination.notifications.publish({
      clientId: null,
      method: 'session.completed',
      params: { sessionKey: 'k' },
    });
    await vi.waitFor(() => expect(seen.b).toHaveLength(2));
    await vi.waitFor(() => expect(seen.c).toHaveLength(2));
    expect(seen.b?.[0]).toEqual(message);
    expect(seen.c).toEqual(seen.b);
    expect(seen.a).toEqual([]);
    for (const stop of stops) stop();
  });

  it('carries retired token ids on their own channel, dropping messages of the wrong shape', async () => {
    const retired: RetiredToken[] = [];
    const notified: PeerNotification[] = [];
    const stops = [
      b.coordination.retiredTokens.subscribe((message) => retired.push(message)),
      b.coordination.notifications.subscribe((message) => notified.push(message)),
    ];
    await raw.publish('test:peer:tokens-retired', 'not json');
    await raw.publish('test:peer:tokens-retired', JSON.stringify({ origin: 'elsewhere', message: { clientId: 42 } }));
    await a.coordination.retiredTokens.publish({ clientId: 'ci-bot' });
    await vi.waitFor(() => expect(retired).toEqual([{ clientId: 'ci-bot' }]));
    expect(notified).toEqual([]);
    for (const stop of stops) stop();
  });
});
