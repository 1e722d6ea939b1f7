// Tokens changed through config.* apply at once: a new one works, a removed one stops working and its sockets close.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_TOKENS, startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc, postRpc } from '../support/http-client.js';
import { connect } from '../support/ws-client.js';

const ADDED = 'added-through-config-0123456789abcdef';
const PING = { jsonrpc: '2.0', id: 1, method: 'system.ping' };

describe('config tokens applied live', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startGateway();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('accepts a token added by config.patch, then refuses it and closes its sockets once removed', async () => {
    const withAdded = [
      ...HARNESS_TOKENS.map((token) => ({ id: token.id, secret: '***', scopes: token.scopes })),
      { id: 'late', secret: ADDED, scopes: ['rpc'] },
    ];
    expect(
      (await callRpc(harness.url, harness.tokens.admin, 'config.patch', { gateway: { tokens: withAdded } })).error,
    ).toBeUndefined();
    expect((await postRpc(harness.url, PING, ADDED)).status).toBe(200);
    const socket = connect(harness.wsUrl, { token: ADDED });
    await socket.opened;

    const without = HARNESS_TOKENS.map((token) => ({ id: token.id, secret: '***', scopes: token.scopes }));
    expect(
      (await callRpc(harness.url, harness.tokens.admin, 'config.patch', { gateway: { tokens: without } })).error,
    ).toBeUndefined();
    expect((await postRpc(harness.url, PING, ADDED)).status).toBe(401);
    expect((await socket.closed).code).toBe(4001);
    // The redacted secrets kept the existing tokens working.
    expect((await postRpc(harness.url, PING, harness.tokens.rpc)).status).toBe(200);
  });
});
