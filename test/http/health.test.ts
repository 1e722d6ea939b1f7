// GET /health and GET /api/health: unauthenticated liveness with an ISO timestamp; GET /ready: the dependencies answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';

describe('health routes', () => {
  let gateway: Harness;
  const NOW = Date.parse('2026-02-03T04:05:06.789Z');
  beforeAll(async () => {
    gateway = await startGateway({ app: { now: () => NOW } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('answers { status: ok, timestamp } without authentication on both paths', async () => {
    for (const path of ['/health', '/api/health']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ status: 'ok', timestamp: '2026-02-03T04:05:06.789Z' });
    }
  });

  it('answers /ready with 200 and each dependency ok, without authentication', async () => {
    const response = await fetch(`${gateway.url}/ready`, { headers: { authorization: 'Bearer nope' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ready',
      timestamp: '2026-02-03T04:05:06.789Z',
      dependencies: { storage: 'ok', coordination: 'ok' },
    });
  });

  it('ignores a bad bearer token', async () => {
    const response = await fetch(`${gateway.url}/health`, { headers: { authorization: 'Bearer nope' } });
    expect(response.status).toBe(200);
  });

  it('uses the real clock by default, as an ISO 8601 timestamp', async () => {
    const real = await startGateway({ listen: false });
    try {
      const before = Date.now();
      const response = await real.app.http.inject({ method: 'GET', url: '/health' });
      const { timestamp } = response.json<{ timestamp: string }>();
      expect(timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(timestamp)).toBeGreaterThanOrEqual(before - 1);
    } finally {
      await real.close();
    }
  });
});
