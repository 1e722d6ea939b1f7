// budgets.* over real HTTP and WebSocket: set, list and delete round trip through config.yaml (hot-applied and
// committed), validation refusals that leave the file alone, budgets.mine for a token's own scopes only, and the
// admin methods refused to an rpc token.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { callRpc, postRpc } from '../support/http-client.js';
import { startGateway, tokensWithRpcTenants, type Harness } from '../support/gateway-harness.js';
import { connectOpen } from '../support/ws-client.js';

interface RpcError {
  code: number;
  message: string;
  data?: { kind?: string; param?: string };
}

describe('budgets.* methods', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({ gateway: { tokens: tokensWithRpcTenants(['acme']) } });
    // The history is readied after start; until its first commit, a change would be folded into "initial config".
    await callRpc(gateway.url, gateway.tokens.admin, 'config.history', {});
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const admin = async (method: string, params?: unknown) => callRpc(gateway.url, gateway.tokens.admin, method, params);
  const fileBudgets = async () =>
    (parseYaml(await readFile(gateway.paths.configPath, 'utf8')) as { budgets?: unknown }).budgets;
  const lastCommit = async () => {
    const { result } = await admin('config.history', { limit: 1 });
    return (result as { entries: { message: string }[] }).entries[0]?.message;
  };
  const listedIds = async () => {
    const { result } = await admin('budgets.list');
    return (result as { budgets: { id: string }[] }).budgets.map((budget) => budget.id);
  };

  it('sets a budget into config.yaml as one commit, lists it with its window and usage, replaces and deletes it', async () => {
    const set = await admin('budgets.set', { id: 'daily-default', scope: 'agent:default', maxCostUsd: 5 });
    expect(set.error).toBeUndefined();
    expect(set.result).toEqual({
      id: 'daily-default',
      scope: 'agent:default',
      window: 'day',
      maxCostUsd: 5,
      action: 'block',
      warnAtFraction: 0.8,
    });
    // The file holds what was sent (defaults stay implicit); the change is committed under the method's name.
    expect(await fileBudgets()).toEqual([{ id: 'daily-default', scope: 'agent:default', maxCostUsd: 5 }]);
    expect(await lastCommit()).toBe('budgets.set daily-default');
    // Hot-applied: the running config has it.
    expect((await admin('config.get', { section: 'budgets' })).result).toEqual([
      { id: 'daily-default', scope: 'agent:default', maxCostUsd: 5 },
    ]);

    const now = new Date();
    const dayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const listed = await admin('budgets.list');
    expect(listed.result).toEqual({
      budgets: [
        {
          id: 'daily-default',
          scope: 'agent:default',
          window: 'day',
          action: 'block',
          warnAtFraction: 0.8,
          maxCostUsd: 5,
          windowStart: dayStart,
          windowEnd: dayStart + 86_400_000,
          used: { costMicroUsd: 0, tokens: 0 },
          reserved: { costMicroUsd: 0, tokens: 0 },
          fractions: { cost: 0 },
          state: 'ok',
        },
      ],
    });

    const replaced = await admin('budgets.set', {
      id: 'daily-default',
      scope: 'agent:default',
      window: { rollingMs: 3_600_000 },
      maxTokens: 10_000,
      action: 'warn',
      warnAtFraction: 0.5,
    });
    expect(replaced.result).toMatchObject({ id: 'daily-default', action: 'warn', maxTokens: 10_000 });
    expect(replaced.result).not.toHaveProperty('maxCostUsd');
    await admin('budgets.set', { id: 'monthly-all', scope: 'global', window: 'month', maxTokens: 1_000_000 });
    expect(await fileBudgets()).toEqual([
      {
        id: 'daily-default',
        scope: 'agent:default',
        window: { rollingMs: 3_600_000 },
        maxTokens: 10_000,
        action: 'warn',
        warnAtFraction: 0.5,
      },
      { id: 'monthly-all', scope: 'global', window: 'month', maxTokens: 1_000_000 },
    ]);
    expect(await listedIds()).toEqual(['daily-default', 'monthly-all']);
    const usage = await admin('budgets.usage', { scope: 'global' });
    expect(usage.result).toMatchObject({ usage: [{ id: 'monthly-all', fractions: { tokens: 0 }, state: 'ok' }] });

    expect((await admin('budgets.delete', { id: 'daily-default' })).result).toEqual({ ok: true, id: 'daily-default' });
    expect(await lastCommit()).toBe('budgets.delete daily-default');
    expect(await fileBudgets()).toEqual([
      { id: 'monthly-all', scope: 'global', window: 'month', maxTokens: 1_000_000 },
    ]);
    expect(await listedIds()).toEqual(['monthly-all']);

    const again = await admin('budgets.delete', { id: 'daily-default' });
    expect(again.error).toMatchObject({ code: -32603, data: { kind: 'not_found', param: 'id' } });
    expect(await lastCommit()).toBe('budgets.delete daily-default');
    await admin('budgets.delete', { id: 'monthly-all' });
    expect(await listedIds()).toEqual([]);

    // Every budgets.* change is audited with its actor (the token); reads (budgets.list) are not while audit.reads is off.
    const audited = async () => {
      const { result } = await admin('obs.audit.query', { kind: 'rpc.call', tenant: '' });
      return (result as { rows: { action: string; actor: string }[] }).rows.filter((row) =>
        row.action.startsWith('budgets.'),
      );
    };
    await expect.poll(async () => (await audited()).filter((row) => row.action === 'budgets.delete').length).toBe(3);
    const rows = await audited();
    expect(rows.filter((row) => row.action === 'budgets.set')).toHaveLength(3);
    expect(rows.every((row) => row.actor === 'admin')).toBe(true);
    expect(rows.some((row) => row.action === 'budgets.list')).toBe(false);
  });

  it('refuses bad scopes, windows, limits and names with -32602 naming the field, and writes nothing', async () => {
    await admin('budgets.set', { id: 'kept', scope: 'tenant:acme', maxTokens: 100 });
    const fileBefore = await readFile(gateway.paths.configPath, 'utf8');
    const commitBefore = await lastCommit();
    const refusals: [unknown, string][] = [
      [{ id: 'b', scope: 'user:alice', maxTokens: 1 }, 'scope'],
      [{ id: 'b', scope: 'agent:', maxTokens: 1 }, 'scope'],
      [{ id: 'b', scope: 'token:a:b', maxTokens: 1 }, 'scope'],
      [{ id: 'b', scope: 'global', maxCostUsd: -1 }, 'maxCostUsd'],
      [{ id: 'b', scope: 'global', maxCostUsd: 1e12 }, 'maxCostUsd'],
      [{ id: 'b', scope: 'global', maxTokens: 2 ** 53 + 1 }, 'maxTokens'],
      [{ id: 'b', scope: 'global', maxTokens: 1.5 }, 'maxTokens'],
      [{ id: 'b', scope: 'global' }, 'maxCostUsd'],
      [{ id: 'b', scope: 'global', maxTokens: 1, window: { rollingMs: 5 } }, 'window.rollingMs'],
      [{ id: 'b', scope: 'global', maxTokens: 1, window: 'week' }, 'window'],
      [{ id: 'b', scope: 'global', maxTokens: 1, warnAtFraction: 1 }, 'warnAtFraction'],
      [{ id: 'b', scope: 'global', maxTokens: 1, action: 'ignore' }, 'action'],
      [{ id: '__proto__', scope: 'global', maxTokens: 1 }, 'id'],
      [{ id: 'a b', scope: 'global', maxTokens: 1 }, 'id'],
      [{ id: 'x'.repeat(65), scope: 'global', maxTokens: 1 }, 'id'],
      [{ id: 'b', scope: 'global', maxTokens: 1, extra: true }, 'extra'],
    ];
    for (const [params, field] of refusals) {
      const { error } = await admin('budgets.set', params);
      const refusal = error as RpcError | undefined;
      expect(refusal, JSON.stringify(params)).toMatchObject({ code: -32602, data: { param: field } });
      expect(refusal?.message, JSON.stringify(params)).toContain(field);
    }
    // A `__proto__` key that JSON.stringify cannot write, spliced into the text.
    const polluted = await postRpc(
      gateway.url,
      '{"jsonrpc":"2.0","id":1,"method":"budgets.set","params":{"__proto__":{"maxTokens":5},"id":"p","scope":"global"}}',
      gateway.tokens.admin,
    );
    expect(polluted.body).toMatchObject({ error: { code: -32602, data: { param: expect.any(String) } } });
    expect(await readFile(gateway.paths.configPath, 'utf8')).toBe(fileBefore);
    expect(await lastCommit()).toBe(commitBefore);
    expect(await listedIds()).toEqual(['kept']);
    await admin('budgets.delete', { id: 'kept' });
  });

  it("answers budgets.mine with the token's own and its tenants' budgets, and refuses another scope", async () => {
    const budgets = [
      { id: 'rpc-tokens', scope: 'token:rpc-client', maxTokens: 1_000 },
      { id: 'acme', scope: 'tenant:acme', maxCostUsd: 2 },
      { id: 'everyone', scope: 'tenant:default', maxCostUsd: 10 },
      { id: 'admin-secret-budget', scope: 'token:admin', maxCostUsd: 99 },
      { id: 'other-tenant', scope: 'tenant:globex', maxCostUsd: 3 },
      { id: 'agent-only', scope: 'agent:default', maxTokens: 5 },
      { id: 'whole', scope: 'global', maxTokens: 50 },
    ];
    for (const budget of budgets) expect((await admin('budgets.set', budget)).error).toBeUndefined();

    const socket = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc });
    try {
      const mine = await socket.call('budgets.mine', {});
      expect(mine.result).toMatchObject({ tokenId: 'rpc-client', tenants: ['default', 'acme'] });
      const ids = (mine.result as { budgets: { id: string; used: unknown }[] }).budgets.map((budget) => budget.id);
      expect(ids).toEqual(['rpc-tokens', 'acme', 'everyone']);
      const one = await socket.call('budgets.mine', { scope: 'tenant:acme' });
      expect(one.result).toMatchObject({ budgets: [{ id: 'acme', scope: 'tenant:acme', maxCostUsd: 2 }] });

      for (const scope of ['token:admin', 'tenant:globex', 'agent:default', 'global']) {
        const refused = await socket.call('budgets.mine', { scope });
        expect(refused.result, scope).toBeUndefined();
        expect(refused.error, scope).toMatchObject({
          code: -32603,
          message: `Budget scope '${scope}' is not this token's or one of its tenants'`,
          data: { kind: 'forbidden', param: 'scope' },
        });
        expect(JSON.stringify(refused.error)).not.toMatch(/admin-secret-budget|other-tenant|whole|agent-only/);
      }
      const malformed = await socket.call('budgets.mine', { scope: 'token:' });
      expect(malformed.error).toMatchObject({ code: -32602, data: { param: 'scope' } });
    } finally {
      await socket.close();
    }
    // Another token without tenants sees only its own token scope and tenant:default.
    const adminMine = await admin('budgets.mine');
    expect((adminMine.result as { budgets: { id: string }[] }).budgets.map((budget) => budget.id)).toEqual([
      'everyone',
      'admin-secret-budget',
    ]);
    for (const { id } of budgets) await admin('budgets.delete', { id });
  });

  it('refuses the admin methods to an rpc token and changes nothing', async () => {
    const fileBefore = await readFile(gateway.paths.configPath, 'utf8');
    const calls: [string, unknown][] = [
      ['budgets.list', {}],
      ['budgets.usage', {}],
      ['budgets.set', { id: 'sneaky', scope: 'token:rpc-client', maxTokens: 1_000_000 }],
      ['budgets.delete', { id: 'sneaky' }],
    ];
    for (const [method, params] of calls) {
      const { error } = await callRpc(gateway.url, gateway.tokens.rpc, method, params);
      expect(error, method).toEqual({
        code: -32603,
        message: "Insufficient scope: requires 'admin'",
        data: expect.objectContaining({ kind: 'forbidden' }),
      });
    }
    expect(await readFile(gateway.paths.configPath, 'utf8')).toBe(fileBefore);
    expect(await listedIds()).toEqual([]);
  });
});
