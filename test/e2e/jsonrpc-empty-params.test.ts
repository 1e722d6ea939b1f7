// `params: []` is how jayson (and other positional-first clients) say "no params": the gateway reads it as no params,
// over POST /rpc and over /ws; a non-empty array is still refused -32602, naming positional params.
import jayson from 'jayson/promise/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { connect } from '../support/ws-client.js';

describe('e2e: JSON-RPC params given as an empty array', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  function jaysonClient(token: string) {
    const url = new URL(gateway.url);
    return jayson.Client.http({
      hostname: url.hostname,
      port: Number(url.port),
      path: '/rpc',
      headers: { authorization: `Bearer ${token}` },
    });
  }

  it("answers jayson's request('system.ping', []) over POST /rpc", async () => {
    const response = await jaysonClient(gateway.tokens.rpc).request('system.ping', []);
    expect(response).toMatchObject({ jsonrpc: '2.0', result: { pong: true } });
  });

  it('reads [] as no params for a method with optional params too (agents.list)', async () => {
    const response = await jaysonClient(gateway.tokens.admin).request('agents.list', []);
    expect(response).toMatchObject({ result: { agents: expect.any(Array) } });
  });

  it('still refuses a non-empty array with -32602 naming positional params', async () => {
    const response = await jaysonClient(gateway.tokens.rpc).request('system.ping', [1]);
    expect(response).toMatchObject({
      error: {
        code: -32602,
        message: expect.stringMatching(/positional/),
        data: { kind: 'invalid_params', param: 'params' },
      },
    });
  });

  it('answers a raw WebSocket frame with params: []', async () => {
    const socket = connect(gateway.wsUrl, { token: gateway.tokens.rpc });
    await socket.opened;
    try {
      socket.send({ jsonrpc: '2.0', id: 'empty', method: 'system.ping', params: [] });
      const answer = await socket.waitFor((frame) => frame.id === 'empty');
      expect(answer).toMatchObject({ result: { pong: true } });
      socket.send({ jsonrpc: '2.0', id: 'positional', method: 'system.ping', params: ['x'] });
      expect(await socket.waitFor((frame) => frame.id === 'positional')).toMatchObject({
        error: { code: -32602, message: expect.stringMatching(/positional/) },
      });
    } finally {
      await socket.close();
    }
  });
});
