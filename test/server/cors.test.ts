// CORS (DESIGN §3 "CORS"): off by default; configured origins may call /v1 and /api from a browser, nothing else may.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';

const APP = 'https://app.example.com';
const DEV = 'http://localhost:5173';
const STRANGER = 'https://evil.example.net';

function preflight(url: string, origin: string, requestHeaders?: string): Promise<Response> {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      ...(requestHeaders === undefined ? {} : { 'access-control-request-headers': requestHeaders }),
    },
  });
}

/** Every access-control-* header of a response, by name. */
function corsHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));
}

describe('CORS with configured origins', () => {
  let llm: FakeLlm;
  let gateway: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      gateway: { cors: { origins: [APP, DEV] }, webhook: { secret: 'cors-webhook-secret-0123456789' } },
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  it('answers a preflight from a configured origin with 204 and the origin, methods, requested headers and max-age, without a token', async () => {
    const sdkHeaders = 'authorization, content-type, x-stainless-os, x-stainless-lang, x-stainless-retry-count';
    for (const [path, origin] of [
      ['/v1/chat/completions', APP],
      ['/api/chat', DEV],
      ['/api/events', APP],
    ] as const) {
      const response = await preflight(`${gateway.url}${path}`, origin, sdkHeaders);
      expect(response.status, path).toBe(204);
      expect(corsHeaders(response), path).toEqual({
        'access-control-allow-origin': origin,
        'access-control-allow-credentials': 'true',
        'access-control-allow-methods': 'GET, HEAD, POST, DELETE',
        'access-control-allow-headers': sdkHeaders,
        'access-control-max-age': '600',
      });
      expect(response.headers.get('vary'), path).toBe('Origin');
    }
  });

  it('allows the usual headers when a preflight names none, and never echoes a malformed header list', async () => {
    const usual = 'authorization, content-type, last-event-id, x-request-id';
    expect((await preflight(`${gateway.url}/api/chat`, APP)).headers.get('access-control-allow-headers')).toBe(usual);
    expect(
      (await preflight(`${gateway.url}/api/chat`, APP, 'authorization, <script>')).headers.get(
        'access-control-allow-headers',
      ),
    ).toBe(usual);
  });

  it('gives a preflight from any other origin no CORS headers, so the browser refuses the request', async () => {
    for (const origin of [STRANGER, 'https://app.example.com.evil.example.net', 'http://app.example.com', 'null']) {
      const response = await preflight(`${gateway.url}/v1/chat/completions`, origin, 'authorization');
      expect(response.status, origin).toBe(403);
      expect(corsHeaders(response), origin).toEqual({});
    }
  });

  it('puts the origin on actual replies of /v1 and /api for a configured origin only', async () => {
    const get = (path: string, headers: Record<string, string>) =>
      fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${gateway.tokens.admin}`, ...headers } });
    for (const path of ['/v1/models', '/api/agents', '/api/health']) {
      const allowed = await get(path, { origin: APP });
      expect(allowed.status, path).toBe(200);
      expect(corsHeaders(allowed), path).toEqual({
        'access-control-allow-origin': APP,
        'access-control-allow-credentials': 'true',
        'access-control-expose-headers':
          'x-request-id, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset',
      });
      expect(allowed.headers.get('vary'), path).toBe('Origin');
      const stranger = await get(path, { origin: STRANGER });
      expect(stranger.status, path).toBe(200);
      expect(corsHeaders(stranger), path).toEqual({});
      expect(corsHeaders(await get(path, {})), path).toEqual({});
    }
  });

  it('puts the origin on error replies too, so a browser script can read them', async () => {
    const noToken = await fetch(`${gateway.url}/api/agents`, { headers: { origin: APP } });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('access-control-allow-origin')).toBe(APP);
    const wrongScope = await fetch(`${gateway.url}/api/agents`, {
      headers: { origin: APP, authorization: `Bearer ${gateway.tokens.api}` },
    });
    expect(wrongScope.status).toBe(403);
    expect(wrongScope.headers.get('access-control-allow-origin')).toBe(APP);
    const badBody = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: APP, authorization: `Bearer ${gateway.tokens.api}`, 'content-type': 'application/json' },
      body: '{"model":"default"}',
    });
    expect(badBody.status).toBe(400);
    expect(badBody.headers.get('access-control-allow-origin')).toBe(APP);
    const unknown = await fetch(`${gateway.url}/api/nothing-here`, { headers: { origin: APP } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('puts the origin on SSE streams, which take the reply over (/api/events, /api/chat/stream, /v1 streaming)', async () => {
    const controller = new AbortController();
    const events = await fetch(`${gateway.url}/api/events?token=${gateway.tokens.rpc}`, {
      headers: { origin: APP },
      signal: controller.signal,
    });
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(corsHeaders(events)).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
    });
    controller.abort();

    llm.script({ deltas: ['a', 'b'] });
    const chat = await fetch(`${gateway.url}/api/chat/stream?message=hi&token=${gateway.tokens.rpc}`, {
      headers: { origin: DEV },
    });
    expect(chat.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(chat.headers.get('access-control-allow-origin')).toBe(DEV);
    expect(await chat.text()).toContain('event: done');

    llm.script({ deltas: ['c', 'd'] });
    const completion = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: APP, authorization: `Bearer ${gateway.tokens.api}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(completion.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(completion.headers.get('access-control-allow-origin')).toBe(APP);
    expect(await completion.text()).toContain('[DONE]');
  });

  it('leaves /rpc, /ws and /hooks same-origin: no preflight answer and no CORS headers', async () => {
    for (const path of ['/rpc', '/ws', '/hooks/webhook']) {
      const response = await preflight(`${gateway.url}${path}`, APP, 'authorization, content-type');
      expect(response.status, path).toBe(404);
      expect(corsHeaders(response), path).toEqual({});
    }
    const rpc = await fetch(`${gateway.url}/rpc`, {
      method: 'POST',
      headers: { origin: APP, authorization: `Bearer ${gateway.tokens.rpc}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.ping' }),
    });
    expect(rpc.status).toBe(200);
    expect(corsHeaders(rpc)).toEqual({});
  });
});

describe('CORS and the rate limit', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({
      gateway: { cors: { origins: [APP] }, rateLimit: { maxRequests: 2, windowMs: 60_000 } },
    });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('does not count preflights, and puts the origin on a 429', async () => {
    for (let i = 0; i < 5; i += 1)
      expect((await preflight(`${gateway.url}/api/agents`, APP, 'authorization')).status).toBe(204);
    const get = () =>
      fetch(`${gateway.url}/api/agents`, { headers: { origin: APP, authorization: `Bearer ${gateway.tokens.rpc}` } });
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('access-control-allow-origin')).toBe(APP);
    expect(refused.headers.get('retry-after')).not.toBeNull();
  });
});

describe('CORS by default', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('is off: no preflight answer and no CORS headers for any origin', async () => {
    // Without CORS a preflight is just an OPTIONS request: /v1 wants a token first, /api has no such route.
    const v1 = await preflight(`${gateway.url}/v1/chat/completions`, APP, 'authorization');
    expect(v1.status).toBe(401);
    expect(corsHeaders(v1)).toEqual({});
    const api = await preflight(`${gateway.url}/api/chat`, APP, 'authorization');
    expect(api.status).toBe(404);
    expect(corsHeaders(api)).toEqual({});
    const actual = await fetch(`${gateway.url}/v1/models`, {
      headers: { origin: APP, authorization: `Bearer ${gateway.tokens.admin}` },
    });
    expect(actual.status).toBe(200);
    expect(corsHeaders(actual)).toEqual({});
    expect(actual.headers.get('vary')).toBeNull();
  });
});
