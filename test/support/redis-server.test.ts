// The Redis harness: a started server answers on its url, and a stopped one is gone with its temp dir.
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startRedisServer } from './redis-server.js';

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('redis-server harness', () => {
  it('starts a server that answers and keeps nothing after stop', async () => {
    const server = await startRedisServer();
    const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await client.connect();
      expect(await client.ping()).toBe('PONG');
      expect(await client.config('GET', 'save')).toEqual(['save', '']);
      expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    } finally {
      client.disconnect();
      await server.stop();
    }
    expect(await refusesConnections(server.port)).toBe(true);
  });

  it('gives two servers two ports', async () => {
    const [first, second] = await Promise.all([startRedisServer(), startRedisServer()]);
    try {
      expect(first.port).not.toBe(second.port);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});
