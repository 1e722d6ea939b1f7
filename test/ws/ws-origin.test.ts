// GET /ws and the Origin header: a browser's cross-origin upgrade is refused unless gateway.cors.origins lists the
// origin or it is the gateway's own; clients that send no Origin (servers, the CLI) are not affected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { connect, connectOpen } from '../support/ws-client.js';

const ALLOWED = 'https://app.example.com';

describe('websocket origin check', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({ gateway: { cors: { origins: [ALLOWED] }, wsHeartbeatMs: 0 } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const open = (origin?: string) =>
    connect(gateway.wsUrl, { token: gateway.tokens.rpc, ...(origin === undefined ? {} : { origin }) });

  it('refuses an upgrade from another origin with 403, before authenticating it', async () => {
    await expect(open('https://evil.example').opened).rejects.toThrow('upgrade refused: HTTP 403');
    await expect(open('null').opened).rejects.toThrow('upgrade refused: HTTP 403');
  });

  it("accepts a client without Origin, the gateway's own origin and an origin in gateway.cors.origins", async () => {
    for (const origin of [undefined, new URL(gateway.url).origin, ALLOWED]) {
      const socket = open(origin);
      await socket.opened;
      expect(await socket.call('system.ping'), String(origin)).toHaveProperty('result.pong', true);
      await socket.close();
    }
  });

  it('accepts the public origin a proxy names in X-Forwarded-Host', async () => {
    const socket = await connectOpen(gateway.wsUrl, {
      token: gateway.tokens.rpc,
      origin: 'https://gateway.example.net',
      headers: { 'x-forwarded-host': 'gateway.example.net' },
    });
    expect(await socket.call('system.ping')).toHaveProperty('result.pong', true);
    await socket.close();
  });

  it('follows a change of gateway.cors.origins at once', async () => {
    const patched = await callRpc(gateway.url, gateway.tokens.admin, 'config.patch', {
      gateway: { cors: { origins: [] } },
    });
    expect(patched).toHaveProperty('result');
    await expect(open(ALLOWED).opened).rejects.toThrow('upgrade refused: HTTP 403');
  });
});
