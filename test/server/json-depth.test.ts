// JSON nesting depth at every edge: a 10,000-level body or message is refused with a clear 400 or -32602
// (in the surface's own envelope) instead of overflowing the stack; MAX_JSON_DEPTH levels still pass.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../src/server/index.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { connectOpen } from '../support/ws-client.js';

const DEEP = 10_000;
const WEBHOOK_SECRET = 'webhook-secret-0123456789';
const DEPTH_MESSAGE = `nests deeper than ${MAX_JSON_DEPTH} levels`;

/** `levels` nested arrays around `inner`, as JSON text: depth(`[[1]]`) is 2. */
function nestedArrays(levels: number, inner = '1'): string {
  return `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
}

/** `{"a":{"a":…{"a":1}…}}` with `levels` objects. */
function nestedObjects(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

describe('exceedsJsonDepth', () => {
  it('counts the outermost container as level 1 and scalars as no level', () => {
    expect(exceedsJsonDepth(1, 0)).toBe(false);
    expect(exceedsJsonDepth('text', 0)).toBe(false);
    expect(exceedsJsonDepth([], 1)).toBe(false);
    expect(exceedsJsonDepth([], 0)).toBe(true);
    expect(exceedsJsonDepth({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(exceedsJsonDepth({ a: [{ b: 1 }] }, 2)).toBe(true);
    expect(exceedsJsonDepth([1, 'x', [2, [3]], { a: null }], 3)).toBe(false);
    expect(exceedsJsonDepth([1, 'x', [2, [3]], { a: null }], 2)).toBe(true);
  });

  it('walks a million levels without recursion', () => {
    const deep: unknown = JSON.parse(nestedArrays(1_000_000));
    expect(exceedsJsonDepth(deep, MAX_JSON_DEPTH)).toBe(true);
    expect(exceedsJsonDepth(JSON.parse(nestedArrays(MAX_JSON_DEPTH)), MAX_JSON_DEPTH)).toBe(false);
  });
});

describe('JSON nesting depth at the edges', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startGateway({
      gateway: { webhook: { secret: WEBHOOK_SECRET, agentId: 'default' } },
      agents: { default: { name: 'Assistant' } },
    });
  });
  afterAll(async () => {
    await harness.close();
  });

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    harness.app.http.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${harness.tokens.admin}`, 'content-type': 'application/json', ...headers },
      payload: body,
    });

  it('REST: answers 400 in the REST envelope for a 10,000-level body', async () => {
    const response = await post('/api/chat', `{"message":"hi","extra":${nestedArrays(DEEP)}}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'invalid_request', message: `Body ${DEPTH_MESSAGE}` } });
  });

  it('/v1: answers 400 in the OpenAI envelope for a 10,000-level body', async () => {
    const response = await post(
      '/v1/chat/completions',
      `{"model":"default","messages":[{"role":"user","content":"hi"}],"metadata":${nestedObjects(DEEP)}}`,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: { message: `Body ${DEPTH_MESSAGE}`, type: 'invalid_request_error', param: null, code: null },
    });
  });

  it('webhook: answers 400 for a correctly signed 10,000-level body', async () => {
    const body = `{"event":"deep","data":${nestedObjects(DEEP)}}`;
    const signature = createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');
    const response = await post('/hooks/webhook', body, { 'x-webhook-signature': `sha256=${signature}` });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'invalid_request', message: `Body ${DEPTH_MESSAGE}` } });
  });

  it('POST /rpc: answers -32602 with the request id for a 10,000-level config.patch', async () => {
    const response = await post(
      '/rpc',
      `{"jsonrpc":"2.0","id":7,"method":"config.patch","params":{"agents":${nestedObjects(DEEP)}}}`,
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32602,
        message: `Invalid params: the message ${DEPTH_MESSAGE}`,
        data: { kind: 'invalid_params', param: 'params' },
      },
    });
  });

  it('POST /rpc: answers each request of a too-deep batch with -32602 and runs none of them', async () => {
    const response = await post(
      '/rpc',
      `[{"jsonrpc":"2.0","id":1,"method":"system.ping"},{"jsonrpc":"2.0","id":2,"method":"config.set","params":{"section":"agents","key":"x","value":${nestedArrays(DEEP)}}}]`,
    );
    expect(response.json()).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32602,
          message: `Invalid params: the message ${DEPTH_MESSAGE}`,
          data: { kind: 'invalid_params', param: 'params' },
        },
      },
      {
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32602,
          message: `Invalid params: the message ${DEPTH_MESSAGE}`,
          data: { kind: 'invalid_params', param: 'params' },
        },
      },
    ]);
  });

  it('WebSocket: answers -32602 with the request id for a 10,000-level config.set, and the socket stays usable', async () => {
    const socket = await connectOpen(harness.wsUrl, { token: harness.tokens.admin });
    socket.send(
      `{"jsonrpc":"2.0","id":"deep","method":"config.set","params":{"section":"agents","key":"x","value":${nestedArrays(DEEP)}}}`,
    );
    expect(await socket.next()).toEqual({
      jsonrpc: '2.0',
      id: 'deep',
      error: {
        code: -32602,
        message: `Invalid params: the message ${DEPTH_MESSAGE}`,
        data: { kind: 'invalid_params', param: 'params' },
      },
    });
    expect(await socket.call('system.ping')).toHaveProperty('result.pong', true);
    await socket.close();
  });

  it('POST /rpc: answers a 10,000-level object that is no request with -32600 Invalid Request, not an empty 204', async () => {
    const response = await post('/rpc', `{"payload":${nestedArrays(DEEP)}}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' },
    });
  });

  it('POST /rpc: answers a non-request item of a too-deep batch with -32600 and its requests with -32602', async () => {
    const response = await post(
      '/rpc',
      `[{"jsonrpc":"2.0","id":1,"method":"system.ping"},{"deep":${nestedObjects(DEEP)}},{"jsonrpc":"2.0","method":"system.ping"}]`,
    );
    expect(response.json()).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32602,
          message: `Invalid params: the message ${DEPTH_MESSAGE}`,
          data: { kind: 'invalid_params', param: 'params' },
        },
      },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' } },
    ]);
  });

  it('WebSocket: answers a 10,000-level object that is no request with -32600 instead of nothing', async () => {
    const socket = await connectOpen(harness.wsUrl, { token: harness.tokens.admin });
    socket.send(`{"payload":${nestedObjects(DEEP)}}`);
    expect(await socket.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' },
    });
    await socket.close();
  });

  it('lets a message of exactly MAX_JSON_DEPTH levels through to the method', async () => {
    // Envelope (1), params (2), value: the rest. The method then judges the value on its own terms.
    const value = nestedArrays(MAX_JSON_DEPTH - 2);
    const response = await post(
      '/rpc',
      `{"jsonrpc":"2.0","id":8,"method":"config.set","params":{"section":"agents","key":"x","value":${value}}}`,
    );
    const body: unknown = response.json();
    expect(body).toMatchObject({ id: 8, error: { code: -32602 } });
    expect(JSON.stringify(body)).not.toContain('deeper than');
  });
});
