// The scope matrix: every method rpc.discover lists refuses a token without its scope with the spec's -32603 message
// (a metrics token: every one), and the methods of the third wave carry the scopes the issues give them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from '../support/http-client.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';

interface DiscoveredMethod {
  name: string;
  'x-scope': string;
}

/** Scopes the issues give the methods they add (issue 36 skills and learning, 37 graphs, 38 terminal drives, 39 channels, 40 budgets). */
/** Scopes the issues give the methods they add (issue 36 skills and learning, 37 graphs, 38 terminal drives, 39 channels, 42 dashboard). */
const EXPECTED_SCOPES: Record<string, string> = {
  'skills.list': 'rpc',
  'skills.get': 'rpc',
  'skills.reload': 'admin',
  'skills.learned.list': 'admin',
  'skills.learned.get': 'admin',
  'skills.learned.archive': 'admin',
  'skills.reflect': 'admin',
  'session.feedback': 'rpc',
  'graph.define': 'admin',
  'graph.delete': 'admin',
  'graph.list': 'rpc',
  'graph.get': 'rpc',
  'graph.run': 'rpc',
  'graph.status': 'rpc',
  'graph.cancel': 'rpc',
  'graph.runs': 'rpc',
  'channels.list': 'admin',
  'channels.test': 'admin',
  'channels.send': 'admin',
  'terminal.list': 'admin',
  'terminal.read': 'admin',
  'terminal.close': 'admin',
  'budgets.list': 'admin',
  'budgets.set': 'admin',
  'budgets.delete': 'admin',
  'budgets.usage': 'admin',
  'budgets.mine': 'rpc',
  'secrets.list': 'admin',
  'secrets.set': 'admin',
  'secrets.delete': 'admin',
  'providers.list': 'admin',
  'providers.save': 'admin',
  'providers.delete': 'admin',
  'tools.list': 'admin',
  'obs.trace.get': 'rpc',
  'obs.audit.facets': 'admin',
  'admin.approval.history': 'admin',
  'config.getSectionYaml': 'admin',
  'config.setSectionYaml': 'admin',
  'obs.billing.spend': 'admin',
};

describe('scope matrix', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  let methods: DiscoveredMethod[];

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      // One token calls every method at once below: more than the default limit's 100 requests a minute.
      gateway: { rateLimit: { maxRequests: 10_000, windowMs: 60_000 } },
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
      a2a: { expose: ['default'] },
    });
    const discovered = await callRpc(gateway.url, gateway.tokens.admin, 'rpc.discover', {});
    methods = (discovered.result as { methods: DiscoveredMethod[] }).methods;
  });
  afterAll(async () => {
    await gateway?.close();
    await llm?.close();
  });

  it('declares the scopes the issues give the new methods', () => {
    const declared = Object.fromEntries(
      methods.filter((method) => method.name in EXPECTED_SCOPES).map((method) => [method.name, method['x-scope']]),
    );
    expect(declared).toEqual(EXPECTED_SCOPES);
  });

  it('refuses every admin method to an rpc token and every rpc method to an admin-only token, naming the scope', async () => {
    const refusals = await Promise.all(
      methods
        .filter((method) => method['x-scope'] === 'admin' || method['x-scope'] === 'rpc')
        .map(async (method) => {
          const token = method['x-scope'] === 'admin' ? gateway.tokens.rpc : gateway.tokens.adminOnly;
          const { error } = await callRpc(gateway.url, token, method.name, {});
          const refusal = error as { code?: number; message?: string } | undefined;
          return { method: method.name, code: refusal?.code, message: refusal?.message };
        }),
    );
    expect(refusals.length).toBeGreaterThan(90);
    for (const refusal of refusals) {
      const scope = methods.find((method) => method.name === refusal.method)?.['x-scope'];
      expect(refusal).toEqual({
        method: refusal.method,
        code: -32603,
        message: `Insufficient scope: requires '${scope}'`,
      });
    }
  });

  it('refuses every rpc and admin method to a metrics token made by tokens.create, naming the scope', async () => {
    const created = await callRpc(gateway.url, gateway.tokens.admin, 'tokens.create', {
      id: 'scraper',
      scopes: ['metrics'],
    });
    const { secret } = created.result as { secret: string };
    const scoped = methods.filter((method) => method['x-scope'] === 'admin' || method['x-scope'] === 'rpc');
    const refusals = await Promise.all(
      scoped.map(async (method) => {
        const { error } = await callRpc(gateway.url, secret, method.name, {});
        const refusal = error as { code?: number; message?: string } | undefined;
        return { method: method.name, code: refusal?.code, message: refusal?.message };
      }),
    );
    for (const refusal of refusals) {
      const scope = methods.find((method) => method.name === refusal.method)?.['x-scope'];
      expect(refusal).toEqual({
        method: refusal.method,
        code: -32603,
        message: `Insufficient scope: requires '${scope}'`,
      });
    }
    expect(refusals.length).toBeGreaterThan(90);
    expect((await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(
      200,
    );
  });

  // A2A's JSON-RPC binding (issue 43) is REST-scoped: rpc or '*'; api, admin-only, ws and mcp-client tokens get 403.
  it('grants POST /a2a/<agentId> to rpc and * tokens only', async () => {
    const statusFor = async (token: string) =>
      (
        await fetch(`${gateway.url}/a2a/default`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'A2A-Version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'none' } }),
        })
      ).status;
    const { tokens } = gateway;
    for (const token of [tokens.rpc, tokens.admin]) expect(await statusFor(token)).toBe(200);
    for (const token of [tokens.api, tokens.adminOnly, tokens.ws, tokens.mcpClient])
      expect(await statusFor(token)).toBe(403);
  });
});
