// The HTTP server: per-client rate limit with Retry-After, body limit, JSON 404s and request ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.ping' });

describe('http server rate limit', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({ listen: false, gateway: { rateLimit: { maxRequests: 3, windowMs: 60_000 } } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const post = (token: string) =>
    gateway.app.http.inject({
      method: 'POST',
      url: '/rpc',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: PING,
    });

  it('exempts /health, /api/health and /ready, however many requests are sent', async () => {
    for (let i = 0; i < 10; i += 1) {
      for (const url of ['/health', '/api/health', '/ready']) {
        const response = await gateway.app.http.inject({
          method: 'GET',
          url,
          headers: { authorization: `Bearer ${gateway.tokens.api}` },
        });
        expect(response.statusCode, `${url} #${i}`).toBe(200);
      }
    }
  });

  it('answers 429 with Retry-After and the rate_limited envelope once a client is over the limit', async () => {
    for (let i = 0; i < 3; i += 1) expect((await post(gateway.tokens.admin)).statusCode).toBe(200);
    const refused = await post(gateway.tokens.admin);
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.json()).toEqual({
      error: { code: 'rate_limited', message: 'Rate limit exceeded: 3 requests per 60000 ms' },
    });
  });

  it('counts each client apart: a second token still gets through', async () => {
    expect((await post(gateway.tokens.admin)).statusCode).toBe(429);
    const other = await post(gateway.tokens.rpc);
    expect(other.statusCode).toBe(200);
    expect(other.json()).toMatchObject({ result: { pong: true } });
  });

  it('still answers /health to a client that is over the limit', async () => {
    const response = await gateway.app.http.inject({
      method: 'GET',
      url: '/health',
      headers: { authorization: `Bearer ${gateway.tokens.admin}` },
    });
    expect(response.statusCode).toBe(200);
  });

  it('counts requests without a valid token by address, apart from token clients', async () => {
    const anonymous = () => gateway.app.http.inject({ method: 'GET', url: '/' });
    for (let i = 0; i < 3; i += 1) expect((await anonymous()).statusCode).toBe(302);
    expect((await anonymous()).statusCode).toBe(429);
    expect((await post(gateway.tokens.api)).statusCode).toBe(200);
  });
});

describe('http server', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({ gateway: { httpBodyLimitBytes: 1_000 } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('answers 413 with payload_too_large for a POST body over httpBodyLimitBytes', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.ping', params: { pad: 'x'.repeat(1_000) } });
    const response = await fetch(`${gateway.url}/rpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.tokens.rpc}`, 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'payload_too_large' } });
  });

  it('accepts a body of exactly httpBodyLimitBytes', async () => {
    const base = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.ping', params: { pad: '' } });
    const body = base.replace('"pad":""', `"pad":"${'x'.repeat(1_000 - base.length)}"`);
    expect(body.length).toBe(1_000);
    const response = await fetch(`${gateway.url}/rpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.tokens.rpc}`, 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(200);
    // The body got through the limit; the method then refuses the unknown param.
    expect(await response.json()).toMatchObject({ error: { code: -32602 } });
  });

  it('answers unknown routes with a JSON 404 naming the route, without the query string', async () => {
    const response = await fetch(`${gateway.url}/no/such/route?token=abc`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      error: { code: 'not_found', message: 'Route GET /no/such/route not found' },
    });
  });

  it("answers malformed %-encoding in the path with 400 in each surface's envelope, never Fastify's own body", async () => {
    const auth = { authorization: `Bearer ${gateway.tokens.admin}` };
    for (const path of ['/api/agents/%zz', '/rpc%E0%A4%A', '/media/%zz', '/hooks/%', '/no/such/%zz']) {
      const response = await fetch(`${gateway.url}${path}`, { headers: auth });
      expect(response.status, path).toBe(400);
      expect(response.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(response.headers.get('x-request-id'), path).toMatch(/^[0-9a-f]{32}$/);
      expect(await response.json(), path).toEqual({
        error: { code: 'invalid_request', message: 'The URL path has malformed %-encoding' },
      });
    }
    for (const path of ['/v1/models/%zz', '/v1/%E0%A4%A']) {
      const response = await fetch(`${gateway.url}${path}`, { headers: auth });
      expect(response.status, path).toBe(400);
      expect(await response.json(), path).toEqual({
        error: {
          message: 'The URL path has malformed %-encoding',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      });
    }
  });

  it('echoes a well-formed x-request-id and makes one up otherwise', async () => {
    const echoed = await fetch(`${gateway.url}/health`, { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-abc.123');
    const replaced = await fetch(`${gateway.url}/health`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    const generated = await fetch(`${gateway.url}/health`);
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(generated.headers.get('x-request-id')).not.toBe(replaced.headers.get('x-request-id'));
  });

  it('echoes the request id on error responses too', async () => {
    const response = await fetch(`${gateway.url}/rpc`, {
      method: 'POST',
      headers: { 'x-request-id': 'err-1' },
      body: PING,
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toBe('err-1');
  });
});
