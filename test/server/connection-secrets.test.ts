// Requests on one keep-alive connection each answer for the token they present: the connection's remembered secret
// digest never stands in for another token, a wrong secret of the same length, or a token revoked since.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'undici';
import { startGateway, type Harness } from '../support/gateway-harness.js';

describe('bearer tokens on one keep-alive connection', () => {
  let gateway: Harness;
  let client: Client;
  let connections = 0;

  beforeAll(async () => {
    gateway = await startGateway();
    gateway.app.http.server.on('connection', () => {
      connections += 1;
    });
    client = new Client(gateway.url);
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.close();
  });

  const rpc = async (token: string, method: string, params: Record<string, unknown> = {}) => {
    const response = await client.request({
      method: 'POST',
      path: '/rpc',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.body.json()) as { result?: Record<string, unknown>; error?: { data?: unknown } };
    return { status: response.statusCode, ...body };
  };

  it('answers each request for its own token, refuses a near miss and a token revoked a request earlier', async () => {
    const admin = gateway.tokens.admin;
    const created = await rpc(admin, 'tokens.create', { id: 'carol', scopes: ['rpc'] });
    const carol = String(created.result?.secret);
    expect(await rpc(admin, 'tokens.list')).toMatchObject({ status: 200, result: { tokens: expect.any(Array) } });
    // Right after the admin's requests, carol's token is carol's: an rpc token, refused the admin method.
    expect(await rpc(carol, 'tokens.list')).toMatchObject({ status: 200, error: { data: { kind: 'forbidden' } } });
    expect(await rpc(carol, 'system.ping')).toMatchObject({ status: 200, result: expect.any(Object) });
    // The admin's secret with its last character changed, after the admin's own secret was presented here.
    expect(await rpc(admin, 'system.ping')).toMatchObject({ status: 200 });
    const nearMiss = `${admin.slice(0, -1)}${admin.endsWith('x') ? 'y' : 'x'}`;
    expect((await rpc(nearMiss, 'system.ping')).status).toBe(401);
    expect(await rpc(admin, 'tokens.revoke', { id: 'carol' })).toMatchObject({ result: { revoked: true } });
    expect(await rpc(carol, 'system.ping')).toMatchObject({ status: 401 });
    expect(await rpc(carol, 'system.ping')).toMatchObject({ status: 401 });
    expect(connections).toBe(1);
  });
});
