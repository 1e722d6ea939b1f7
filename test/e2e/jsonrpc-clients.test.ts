// Off-the-shelf JSON-RPC client libraries against a started gateway, used the way their READMEs show:
// json-rpc-2.0 over fetch to POST /rpc, jayson's HTTP client, and rpc-websockets over /ws.
import jayson from 'jayson/promise/index.js';
import {
  isJSONRPCResponse,
  isJSONRPCResponses,
  JSONRPCClient,
  JSONRPCErrorException,
  type JSONRPCRequest,
} from 'json-rpc-2.0';
import { Client as RpcWebSocketClient } from 'rpc-websockets';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';

/** Short, so a heartbeat notification reaches the WebSocket client within the test. */
const HEARTBEAT_MS = 100;

describe('e2e: JSON-RPC client libraries', () => {
  let gateway: Harness;

  beforeAll(async () => {
    gateway = await startGateway({ gateway: { wsHeartbeatMs: HEARTBEAT_MS } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  describe('json-rpc-2.0 JSONRPCClient over fetch', () => {
    /** The HTTP status of each request the transport sent, in order. */
    let statuses: number[] = [];
    /** The transport from the library's README, with our bearer token. */
    function fetchClient(token: string): JSONRPCClient {
      const client: JSONRPCClient = new JSONRPCClient(async (request: JSONRPCRequest | JSONRPCRequest[]) => {
        const response = await fetch(`${gateway.url}/rpc`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(request),
        });
        statuses.push(response.status);
        if (response.status === 200) {
          const body: unknown = await response.json();
          if (!isJSONRPCResponse(body) && !isJSONRPCResponses(body))
            throw new Error(`not a JSON-RPC response: ${JSON.stringify(body)}`);
          client.receive(body);
          return;
        }
        if (response.status !== 204) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
      });
      return client;
    }

    it('answers a call', async () => {
      expect(await fetchClient(gateway.tokens.rpc).request('system.ping', {})).toMatchObject({
        pong: true,
        ts: expect.any(Number),
      });
    });

    it('answers a batch, each response matched to its request', async () => {
      const client = fetchClient(gateway.tokens.admin);
      const responses = await client.requestAdvanced([
        { jsonrpc: '2.0', method: 'system.ping', params: {}, id: 1 },
        { jsonrpc: '2.0', method: 'no.such.method', params: {}, id: 2 },
        { jsonrpc: '2.0', method: 'tokens.list', params: {}, id: 3 },
      ]);
      const byId = new Map(responses.map((response) => [response.id, response]));
      expect(byId.get(1)).toMatchObject({ result: { pong: true } });
      expect(byId.get(2)).toMatchObject({ error: { code: -32601 } });
      expect(byId.get(3)).toMatchObject({ result: expect.anything() });
    });

    it('rejects with JSONRPCErrorException carrying code, message and data', async () => {
      const failure = await Promise.resolve(
        fetchClient(gateway.tokens.admin).request('tokens.revoke', { id: 'nobody' }),
      ).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(JSONRPCErrorException);
      expect(failure).toMatchObject({
        code: -32603,
        message: "Token 'nobody' not found",
        data: { kind: 'not_found', param: 'id' },
      });
      const invalid = await Promise.resolve(
        fetchClient(gateway.tokens.admin).request('tokens.revoke', { id: 'x', extra: 1 }),
      ).catch((error: unknown) => error);
      expect(invalid).toMatchObject({ code: -32602 });
    });

    it('sends a notification, which the gateway answers with 204 and no body', async () => {
      statuses = [];
      fetchClient(gateway.tokens.rpc).notify('system.ping', {});
      await vi.waitFor(() => expect(statuses).toEqual([204]));
    });
  });

  describe("jayson's HTTP client", () => {
    function jaysonClient(token: string) {
      const url = new URL(gateway.url);
      return jayson.Client.http({
        hostname: url.hostname,
        port: Number(url.port),
        path: '/rpc',
        headers: { authorization: `Bearer ${token}` },
      });
    }

    it('answers a call, with the uuid string id jayson generates echoed back', async () => {
      const client = jaysonClient(gateway.tokens.rpc);
      const response = await client.request('system.ping', {});
      expect(response).toMatchObject({
        jsonrpc: '2.0',
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        result: { pong: true },
      });
    });

    it('answers a batch', async () => {
      const client = jaysonClient(gateway.tokens.admin);
      const batch = [
        client.request('system.ping', {}, undefined, false),
        client.request('tokens.list', {}, undefined, false),
      ];
      const responses: unknown = await client.request(batch);
      expect(Array.isArray(responses)).toBe(true);
      expect(responses).toHaveLength(2);
      const ids = batch.map((request) => request.id);
      expect(responses).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: ids[0], result: expect.objectContaining({ pong: true }) }),
          expect.objectContaining({ id: ids[1] }),
        ]),
      );
    });

    it('answers an error with code, message and data', async () => {
      const response = await jaysonClient(gateway.tokens.admin).request('tokens.revoke', { id: 'nobody' });
      expect(response).toMatchObject({
        error: { code: -32603, message: "Token 'nobody' not found", data: { kind: 'not_found', param: 'id' } },
      });
    });
  });

  describe('rpc-websockets Client over /ws', () => {
    let client: RpcWebSocketClient;
    beforeAll(async () => {
      client = new RpcWebSocketClient(gateway.wsUrl, {
        reconnect: false,
        headers: { authorization: `Bearer ${gateway.tokens.rpc}` },
      });
      await new Promise<void>((resolve, reject) => {
        client.once('open', () => resolve());
        client.once('error', reject);
      });
    });
    afterAll(() => {
      client.close();
    });

    it('answers a call, with or without params, and rejects an unknown method with its JSON-RPC error', async () => {
      expect(await client.call('system.ping', {})).toMatchObject({ pong: true });
      // Without params the library leaves the member out, which JSON-RPC 2.0 allows.
      expect(await client.call('system.ping')).toMatchObject({ pong: true });
      await expect(client.call('no.such.method', {})).rejects.toMatchObject({ code: -32601 });
    });

    it('delivers the server heartbeat notification to a listener of its method name', async () => {
      const params = await new Promise<unknown>((resolve) => client.once('heartbeat', resolve));
      expect(params).toEqual({ ts: expect.any(Number) });
    });

    it("refuses the library's own subscribe() extension (rpc.on), which no gateway method implements", async () => {
      await expect(client.subscribe('session.completed')).rejects.toMatchObject({ code: -32601 });
    });
  });
});
