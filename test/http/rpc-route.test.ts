// POST /rpc: JSON-RPC over HTTP with the shared dispatcher, batches, notifications and any content type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { postRpc } from '../support/http-client.js';

describe('POST /rpc', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({ gateway: { maxBatchSize: 3 } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('answers a call with its result as application/json', async () => {
    const { status, headers, body } = await postRpc(
      gateway.url,
      { jsonrpc: '2.0', id: 'a', method: 'system.ping' },
      gateway.tokens.rpc,
    );
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'a', result: { pong: true } });
  });

  it('answers invalid JSON with -32700 and HTTP 200', async () => {
    const { status, body } = await postRpc(gateway.url, '{"jsonrpc": "2.0", "method": ', gateway.tokens.rpc);
    expect(status).toBe(200);
    expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  });

  it('answers an empty body with -32700', async () => {
    const { body } = await postRpc(gateway.url, '', gateway.tokens.rpc);
    expect(body).toMatchObject({ error: { code: -32700 } });
  });

  it('parses a curl-style form-encoded body as JSON-RPC', async () => {
    const { status, body } = await postRpc(
      gateway.url,
      { jsonrpc: '2.0', id: 2, method: 'system.ping' },
      gateway.tokens.rpc,
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: 2, result: { pong: true } });
  });

  it('parses a body sent as text/plain too', async () => {
    const { body } = await postRpc(gateway.url, { jsonrpc: '2.0', id: 3, method: 'system.ping' }, gateway.tokens.rpc, {
      'content-type': 'text/plain',
    });
    expect(body).toMatchObject({ id: 3, result: { pong: true } });
  });

  it('answers a batch with an array in request order', async () => {
    const { status, body } = await postRpc(
      gateway.url,
      [
        { jsonrpc: '2.0', id: 1, method: 'system.ping' },
        { jsonrpc: '2.0', id: 2, method: 'no.such' },
        { jsonrpc: '2.0', id: 3, method: 'tokens.list' },
      ],
      gateway.tokens.rpc,
    );
    expect(status).toBe(200);
    expect(body).toEqual([
      { jsonrpc: '2.0', id: 1, result: expect.objectContaining({ pong: true }) },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found: no.such' } },
      {
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32603, message: "Insufficient scope: requires 'admin'", data: { kind: 'forbidden' } },
      },
    ]);
  });

  it('answers a one-element batch with an array', async () => {
    const { body } = await postRpc(gateway.url, [{ jsonrpc: '2.0', id: 1, method: 'system.ping' }], gateway.tokens.rpc);
    expect(Array.isArray(body)).toBe(true);
    expect(body).toHaveLength(1);
  });

  it('answers an empty batch with one -32600 object', async () => {
    const { body } = await postRpc(gateway.url, [], gateway.tokens.rpc);
    expect(body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: empty batch' },
    });
  });

  it('answers a batch longer than maxBatchSize with -32600', async () => {
    const batch = [1, 2, 3, 4].map((id) => ({ jsonrpc: '2.0', id, method: 'system.ping' }));
    const { status, body } = await postRpc(gateway.url, batch, gateway.tokens.rpc);
    expect(status).toBe(200);
    expect(body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Batch of 4 requests exceeds maximum of 3' },
    });
  });

  it('answers 204 with no body to a batch of only notifications, and to a single notification', async () => {
    const batch = await postRpc(
      gateway.url,
      [
        { jsonrpc: '2.0', method: 'system.ping' },
        { jsonrpc: '2.0', method: 'system.ping' },
      ],
      gateway.tokens.rpc,
    );
    expect(batch.status).toBe(204);
    expect(batch.body).toBeUndefined();
    const single = await postRpc(gateway.url, { jsonrpc: '2.0', method: 'system.ping' }, gateway.tokens.rpc);
    expect(single.status).toBe(204);
  });

  it('answers only the calls of a batch that mixes calls and notifications', async () => {
    const { status, body } = await postRpc(
      gateway.url,
      [
        { jsonrpc: '2.0', method: 'system.ping' },
        { jsonrpc: '2.0', id: 'x', method: 'system.ping' },
      ],
      gateway.tokens.rpc,
    );
    expect(status).toBe(200);
    expect(body).toEqual([{ jsonrpc: '2.0', id: 'x', result: expect.objectContaining({ pong: true }) }]);
  });

  it('answers -32602 naming the param over HTTP too', async () => {
    const { body } = await postRpc(
      gateway.url,
      { jsonrpc: '2.0', id: 1, method: 'system.ping', params: { nope: 1 } },
      gateway.tokens.rpc,
    );
    expect(body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: "Invalid params: unknown param 'nope'",
        data: { kind: 'invalid_params', param: 'nope' },
      },
    });
  });

  it('refuses other methods on /rpc', async () => {
    const response = await fetch(`${gateway.url}/rpc`, { headers: { authorization: `Bearer ${gateway.tokens.rpc}` } });
    expect(response.status).toBe(404);
  });
});
