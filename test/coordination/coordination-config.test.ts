// `coordination:` in the config: local by default, redis with a URL; a replica refuses to start without its Redis.
import { afterAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.js';
import { startGateway } from '../support/gateway-harness.js';
import { startRedisServer } from '../support/redis-server.js';

describe('coordination config', () => {
  it('defaults to local, and takes redis with a URL, a key prefix (default agw:) and a channel lease ttl', () => {
    expect(validateConfig({}, 'test').coordination).toEqual({ kind: 'local' });
    expect(
      validateConfig({ coordination: { kind: 'redis', url: 'redis://cache:6379/2' } }, 'test').coordination,
    ).toEqual({
      kind: 'redis',
      url: 'redis://cache:6379/2',
      keyPrefix: 'agw:',
      channelLeaseTtlMs: 15_000,
    });
    expect(() =>
      validateConfig({ coordination: { kind: 'redis', url: 'redis://cache', channelLeaseTtlMs: 500 } }, 'test'),
    ).toThrow('coordination.channelLeaseTtlMs');
    expect(
      validateConfig({ coordination: { kind: 'redis', url: 'rediss://cache:6380', keyPrefix: 'prod:' } }, 'test')
        .coordination,
    ).toMatchObject({ keyPrefix: 'prod:' });
  });

  it('refuses a redis coordination without a redis URL, or with unknown keys, naming the key', () => {
    expect(() => validateConfig({ coordination: { kind: 'redis', url: 'http://cache:6379' } }, 'test')).toThrow(
      'coordination.url: must be a redis:// or rediss:// URL',
    );
    expect(() => validateConfig({ coordination: { kind: 'redis' } }, 'test')).toThrow('coordination.url');
    expect(() => validateConfig({ coordination: { kind: 'local', url: 'redis://cache' } }, 'test')).toThrow(
      'coordination',
    );
    expect(() => validateConfig({ coordination: { kind: 'memcached' } }, 'test')).toThrow('coordination.kind');
  });
});

describe('a replica configured for redis', () => {
  const stops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  it('refuses to start when its Redis cannot be reached', async () => {
    const redis = await startRedisServer();
    await redis.stop();
    await expect(startGateway({ coordination: { kind: 'redis', url: redis.url } })).rejects.toThrow(
      /ECONNREFUSED|connect|Connection/i,
    );
  });

  it('starts and stops cleanly with one', async () => {
    const redis = await startRedisServer();
    stops.push(() => redis.stop());
    const gateway = await startGateway({ coordination: { kind: 'redis', url: redis.url } });
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    await gateway.close();
    expect(gateway.app.state()).toBe('closed');
  });

  it('answers /api/events with 503 unavailable, not a cut stream, when its Redis is gone and a replay is asked for', async () => {
    const redis = await startRedisServer();
    const gateway = await startGateway({ coordination: { kind: 'redis', url: redis.url } });
    try {
      await redis.stop();
      const response = await fetch(`${gateway.url}/api/events`, {
        headers: { authorization: `Bearer ${gateway.tokens.admin}`, 'last-event-id': '1-0' },
      });
      // Issue 30: a dependency outage is no bug; it answers 503 with a retry hint rather than 500.
      expect(response.status).toBe(503);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(await response.json()).toMatchObject({ error: { code: 'unavailable' } });
    } finally {
      await gateway.close();
    }
  });
});
