// system.ping and rpc.discover on the real registry; a walk over every method checks its scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness, type TokenName } from '../support/gateway-harness.js';
import { injectRpc } from '../support/http-client.js';

interface DiscoveredMethod {
  name: string;
  summary: string;
  paramStructure: string;
  params: { name: string; required: boolean; schema: unknown }[];
  'x-scope': string;
  'x-policy': { audit: boolean; maxParamsBytes?: number; requiresApproval: boolean };
}

describe('system and rpc methods', () => {
  let gateway: Harness;
  const NOW = Date.parse('2026-05-06T07:08:09.000Z');
  const UNSCOPED = 'unscoped-secret-0123456789abcdefghijklm';
  beforeAll(async () => {
    gateway = await startGateway({
      listen: false,
      // More than the default 100 requests a minute: one test calls every admin method with the rpc token.
      gateway: { rateLimit: { maxRequests: 10_000, windowMs: 60_000 } },
      app: { now: () => NOW, version: '9.8.7' },
      extraTokens: [{ id: 'unscoped', secret: UNSCOPED, scopes: [] }],
    });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('system.ping answers { pong: true, ts } with the server clock', async () => {
    expect(await injectRpc(gateway.app, gateway.tokens.rpc, 'system.ping')).toMatchObject({
      result: { pong: true, ts: NOW },
    });
  });

  it('rpc.discover returns an OpenRPC document with the gateway version', async () => {
    const { result } = await injectRpc(gateway.app, gateway.tokens.rpc, 'rpc.discover');
    expect(result).toMatchObject({ openrpc: '1.3.2', info: { title: 'Agent Gateway JSON-RPC', version: '9.8.7' } });
  });

  it('rpc.discover lists every registered method exactly once, with its scope, summary and params', async () => {
    const response = await injectRpc(gateway.app, gateway.tokens.rpc, 'rpc.discover');
    const { methods } = response.result as { methods: DiscoveredMethod[] };
    const registered = gateway.app.registry.list();
    expect(registered.length).toBeGreaterThan(0);
    expect(methods.map((method) => method.name)).toEqual(registered.map((method) => method.name));
    for (const definition of registered) {
      const discovered = methods.find((method) => method.name === definition.name);
      expect(discovered, definition.name).toBeDefined();
      expect(discovered?.['x-scope'], definition.name).toBe(definition.scope);
      expect(discovered?.summary, definition.name).toBe(definition.summary);
      expect(discovered?.paramStructure).toBe('by-name');
    }
  });

  it('rpc.discover publishes the policy of each method as the dispatcher applies it; every admin method is audited', async () => {
    const response = await injectRpc(gateway.app, gateway.tokens.rpc, 'rpc.discover');
    const { methods } = response.result as { methods: DiscoveredMethod[] };
    for (const definition of gateway.app.registry.list()) {
      const discovered = methods.find((method) => method.name === definition.name);
      expect(discovered?.['x-policy'], definition.name).toEqual(definition.policy);
      if (definition.scope === 'admin') expect(definition.policy.audit, definition.name).toBe(true);
    }
  });

  it('rpc.discover describes the params of tokens.create with their requiredness', async () => {
    const response = await injectRpc(gateway.app, gateway.tokens.rpc, 'rpc.discover');
    const { methods } = response.result as { methods: DiscoveredMethod[] };
    const create = methods.find((method) => method.name === 'tokens.create');
    expect(create?.params.map((param) => [param.name, param.required])).toEqual([
      ['id', true],
      ['scopes', true],
    ]);
    expect(methods.find((method) => method.name === 'system.ping')?.params).toEqual([]);
  });

  it('refuses every admin method to an rpc-only token with -32603 naming admin', async () => {
    const adminMethods = gateway.app.registry.list().filter((method) => method.scope === 'admin');
    expect(adminMethods.length).toBeGreaterThan(0);
    for (const method of adminMethods) {
      const response = await injectRpc(gateway.app, gateway.tokens.rpc, method.name);
      expect(response.error, method.name).toEqual({
        code: -32603,
        message: "Insufficient scope: requires 'admin'",
        data: { kind: 'forbidden' },
      });
    }
  });

  it('refuses every rpc method to tokens without rpc scope over HTTP, with -32603 naming rpc', async () => {
    const rpcMethods = gateway.app.registry.list().filter((method) => method.scope === 'rpc');
    expect(rpcMethods.length).toBeGreaterThan(0);
    const withoutRpc: TokenName[] = ['adminOnly', 'mcpClient', 'api', 'ws'];
    for (const method of rpcMethods) {
      for (const token of withoutRpc) {
        const response = await injectRpc(gateway.app, gateway.tokens[token], method.name);
        expect(response.error, `${method.name} with ${token}`).toEqual({
          code: -32603,
          message: "Insufficient scope: requires 'rpc'",
          data: { kind: 'forbidden' },
        });
      }
    }
  });

  it('lets a * token and a token with empty scopes reach every method past the scope check', async () => {
    for (const token of [gateway.tokens.admin, UNSCOPED]) {
      for (const method of gateway.app.registry.list()) {
        if (method.name === 'gateway.restart') continue;
        const response = await injectRpc(gateway.app, token, method.name, {});
        const error = response.error as { code: number; message: string } | undefined;
        expect(error?.message ?? '', method.name).not.toMatch(/Insufficient scope/);
      }
    }
  });
});
