// End to end: a started gateway driven with real fetch and ws clients through the token lifecycle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc, postRpc } from '../support/http-client.js';
import { connect, connectOpen, type TestSocket } from '../support/ws-client.js';

interface Issued {
  id: string;
  secret: string;
  scopes: string[];
}

describe('gateway core end to end', () => {
  let gateway: Harness;
  let admin: TestSocket;
  beforeAll(async () => {
    gateway = await startGateway();
    admin = await connectOpen(gateway.wsUrl, { token: gateway.tokens.admin });
  });
  afterAll(async () => {
    await admin.close();
    await gateway.close();
  });

  it('is healthy and answers system.ping over HTTP and over the WebSocket', async () => {
    expect(await (await fetch(`${gateway.url}/health`)).json()).toMatchObject({ status: 'ok' });
    const overHttp = await callRpc(gateway.url, gateway.tokens.rpc, 'system.ping');
    const overWs = await admin.call('system.ping');
    for (const response of [overHttp, overWs]) {
      expect(response).toMatchObject({ jsonrpc: '2.0', result: { pong: true, ts: expect.any(Number) } });
    }
  });

  it('walks a token through create, use on both transports, rotate and revoke', async () => {
    const created = await admin.call('tokens.create', { id: 'e2e-client', scopes: ['rpc'] });
    const issued = created.result as Issued;
    expect(issued).toMatchObject({
      id: 'e2e-client',
      scopes: ['rpc'],
      secret: expect.stringMatching(/^[A-Za-z0-9]{48}$/),
    });

    // The new token works at once over HTTP and the WebSocket, within its scope.
    expect(await callRpc(gateway.url, issued.secret, 'system.ping')).toHaveProperty('result.pong', true);
    const client = await connectOpen(gateway.wsUrl, { token: issued.secret });
    expect(await client.call('system.ping')).toHaveProperty('result.pong', true);
    expect((await client.call('tokens.list')).error).toEqual({
      code: -32603,
      message: "Insufficient scope: requires 'admin'",
      data: { kind: 'forbidden' },
    });
    await client.close();

    const listed = await callRpc(gateway.url, gateway.tokens.admin, 'tokens.list');
    expect(JSON.stringify(listed)).toContain('"id":"e2e-client"');
    expect(JSON.stringify(listed)).not.toContain(issued.secret);

    // Rotation: the old secret fails, the new one works.
    const rotated = (await admin.call('tokens.rotate', { id: 'e2e-client' })).result as Issued;
    expect((await postRpc(gateway.url, { jsonrpc: '2.0', id: 1, method: 'system.ping' }, issued.secret)).status).toBe(
      401,
    );
    expect(await callRpc(gateway.url, rotated.secret, 'system.ping')).toHaveProperty('result.pong', true);

    // Revocation: the token fails at once on both transports, and a socket already open with it is closed.
    const open = await connectOpen(gateway.wsUrl, { token: rotated.secret });
    expect((await admin.call('tokens.revoke', { id: 'e2e-client' })).result).toEqual({
      id: 'e2e-client',
      revoked: true,
    });
    expect(await open.closed).toEqual({ code: 4001, reason: 'Token revoked' });
    const refused = await postRpc(gateway.url, { jsonrpc: '2.0', id: 1, method: 'system.ping' }, rotated.secret);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: { code: 'unauthorized', message: 'Missing or invalid bearer token' } });
    const late = connect(gateway.wsUrl, { token: rotated.secret });
    await late.opened;
    expect((await late.closed).code).toBe(4001);
  });

  it('keeps the admin connection usable across the whole walk', async () => {
    expect(await admin.call('system.ping')).toHaveProperty('result.pong', true);
  });
});
