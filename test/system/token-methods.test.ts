// tokens.* over JSON-RPC: issue, list, revoke and rotate, with the new secret usable at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { injectRpc } from '../support/http-client.js';

interface Issued {
  id: string;
  secret: string;
  scopes: string[];
}

describe('tokens methods', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({ listen: false });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const admin = (method: string, params?: unknown) => injectRpc(gateway.app, gateway.tokens.admin, method, params);

  it('tokens.create returns a 48-character secret that works at once with its scopes', async () => {
    const { result } = await admin('tokens.create', { id: 'carol', scopes: ['rpc'] });
    const issued = result as Issued;
    expect(issued).toMatchObject({ id: 'carol', scopes: ['rpc'] });
    expect(issued.secret).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(await injectRpc(gateway.app, issued.secret, 'system.ping')).toHaveProperty('result.pong', true);
    expect(await injectRpc(gateway.app, issued.secret, 'tokens.list')).toMatchObject({ error: { code: -32603 } });
  });

  it('tokens.list shows config and issued tokens without any secret', async () => {
    const response = await admin('tokens.list');
    const { tokens } = response.result as { tokens: { id: string; source: string }[] };
    expect(tokens.find((token) => token.id === 'carol')).toMatchObject({ source: 'api', scopes: ['rpc'] });
    expect(tokens.find((token) => token.id === 'admin')).toMatchObject({ source: 'config', scopes: ['*'] });
    const text = JSON.stringify(response);
    expect(text).not.toContain('secret');
    expect(text).not.toContain(gateway.tokens.admin);
  });

  it('tokens.create refuses an existing id and a config id', async () => {
    expect(await admin('tokens.create', { id: 'carol', scopes: [] })).toMatchObject({
      error: { code: -32603, message: "Token 'carol' already exists", data: { kind: 'conflict' } },
    });
    expect(await admin('tokens.create', { id: 'admin', scopes: [] })).toMatchObject({
      error: { code: -32603, data: { kind: 'conflict' } },
    });
  });

  it('tokens.create names a bad param', async () => {
    expect(await admin('tokens.create', { id: 'x y', scopes: [] })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'id' } },
    });
    expect(await admin('tokens.create', { id: 'dave', scopes: ['root'] })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'scopes.0' } },
    });
    expect(await admin('tokens.create', { id: 'dave' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'scopes' } },
    });
    expect(await admin('tokens.create', { id: 'dave', scopes: [], ttl: 5 })).toMatchObject({
      error: { code: -32602, message: "Invalid params: unknown param 'ttl'" },
    });
  });

  it('tokens.rotate: the old secret is refused at once and the new one accepted', async () => {
    const created = (await admin('tokens.create', { id: 'erin', scopes: ['rpc'] })).result as Issued;
    const rotated = (await admin('tokens.rotate', { id: 'erin' })).result as Issued;
    expect(rotated).toMatchObject({ id: 'erin', scopes: ['rpc'] });
    expect(rotated.secret).not.toBe(created.secret);
    const old = await gateway.app.http.inject({
      method: 'POST',
      url: '/rpc',
      headers: { authorization: `Bearer ${created.secret}` },
      payload: '{"jsonrpc":"2.0","id":1,"method":"system.ping"}',
    });
    expect(old.statusCode).toBe(401);
    expect(await injectRpc(gateway.app, rotated.secret, 'system.ping')).toHaveProperty('result.pong', true);
  });

  it('tokens.revoke stops the token at once', async () => {
    const created = (await admin('tokens.create', { id: 'frank', scopes: ['rpc'] })).result as Issued;
    expect(await admin('tokens.revoke', { id: 'frank' })).toMatchObject({ result: { id: 'frank', revoked: true } });
    const response = await gateway.app.http.inject({
      method: 'POST',
      url: '/rpc',
      headers: { authorization: `Bearer ${created.secret}` },
      payload: '{"jsonrpc":"2.0","id":1,"method":"system.ping"}',
    });
    expect(response.statusCode).toBe(401);
  });

  it('config tokens cannot be revoked or rotated over RPC (conflict)', async () => {
    expect(await admin('tokens.revoke', { id: 'admin' })).toMatchObject({
      error: {
        code: -32603,
        message: "Token 'admin' is defined in the config file; remove it there",
        data: { kind: 'conflict' },
      },
    });
    expect(await admin('tokens.rotate', { id: 'rpc-client' })).toMatchObject({
      error: { code: -32603, data: { kind: 'conflict' } },
    });
    expect(await injectRpc(gateway.app, gateway.tokens.admin, 'system.ping')).toHaveProperty('result.pong', true);
  });

  it('revoking or rotating an unknown id answers not found', async () => {
    expect(await admin('tokens.revoke', { id: 'ghost' })).toMatchObject({
      error: { code: -32603, message: "Token 'ghost' not found", data: { kind: 'not_found' } },
    });
    expect(await admin('tokens.rotate', { id: 'ghost' })).toMatchObject({
      error: { code: -32603, data: { kind: 'not_found' } },
    });
  });
});
