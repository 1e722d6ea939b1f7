// memory.* over real JSON-RPC (POST /rpc) and GET /api/memory/* against a started gateway with its SQLite file:
// params, errors, scopes, the MemoryEntry shape, the audit row of memory.flush and the REST bounds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRow } from '../../src/obs/index.js';
import { startGateway, TOKEN_IDS, tokensWithRpcTenants, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

interface Entry {
  id: string;
  content: string;
  score: number | null;
  createdAt: string;
  memoryType: string;
  trustLevel: string;
  tenantId: string;
}

describe('memory methods and routes', () => {
  let harness: Harness;
  let admin: (method: string, params?: unknown) => Promise<Record<string, unknown>>;
  let rpc: (method: string, params?: unknown) => Promise<Record<string, unknown>>;
  const stored: string[] = [];

  beforeAll(async () => {
    // The operator's entries (memory.store) are admin's: the rpc token reads them because it is given tenant default.
    harness = await startGateway({ gateway: { tokens: tokensWithRpcTenants(['default']) } });
    admin = (method, params) => callRpc(harness.url, harness.tokens.admin, method, params);
    rpc = (method, params) => callRpc(harness.url, harness.tokens.rpc, method, params);
    for (const content of [
      'The staging database password rotates every ninety days',
      'Aisha drinks her coffee black',
      'The office wifi network is called Harbor',
    ]) {
      const { result } = await admin('memory.store', { content, metadata: { source: 'test' } });
      stored.push((result as { id: string }).id);
    }
  });
  afterAll(async () => {
    await harness?.close();
  });

  const get = (path: string, token?: string) =>
    fetch(`${harness.url}${path}`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });

  it('memory.store answers the new id; bad params are -32602 naming the param; rpc tokens lack the scope', async () => {
    expect(stored).toHaveLength(3);
    expect(stored.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect((await admin('memory.store', { content: '' })).error).toMatchObject({ code: -32602 });
    expect((await admin('memory.store', { content: 'x', tenantId: 'acme' })).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('tenantId'),
    });
    expect((await admin('memory.store', { content: 'x', metadata: 'no' })).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('metadata'),
    });
    expect((await rpc('memory.store', { content: 'x' })).error).toMatchObject({
      code: -32603,
      message: "Insufficient scope: requires 'admin'",
    });
  });

  it('memory.search finds by words, best first, each entry with a score and the catalogue fields', async () => {
    const { result } = await rpc('memory.search', { query: 'what is the wifi network called', limit: 2 });
    const { results } = result as { results: Entry[] };
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(2);
    expect(results[0]).toMatchObject({
      id: stored[2],
      content: 'The office wifi network is called Harbor',
      memoryType: 'fact',
      trustLevel: 'trusted',
      tenantId: 'default',
    });
    expect(results[0]?.score).toBeGreaterThan(0);
    expect(results[0]?.score).toBeLessThanOrEqual(1);
    expect(new Date(results[0]?.createdAt ?? '').toISOString()).toBe(results[0]?.createdAt);
    for (const params of [
      {},
      { query: '' },
      { query: 'x', limit: 0 },
      { query: 'x', limit: 101 },
      { query: 'x', limit: 1.5 },
      { query: 'x', extra: 1 },
    ]) {
      expect((await rpc('memory.search', params)).error, JSON.stringify(params)).toMatchObject({ code: -32602 });
    }
  });

  it('memory.inspect answers an entry by id, stats without one, not_found for an unknown id and forbidden for another tenant', async () => {
    expect((await rpc('memory.inspect', { id: stored[1] })).result).toMatchObject({
      entry: { id: stored[1], content: 'Aisha drinks her coffee black', score: null },
    });
    expect((await rpc('memory.inspect', {})).result).toMatchObject({
      stats: { totalEntries: 3, embeddingProvider: 'builtin/hashing-256' },
    });
    expect((await rpc('memory.inspect', { id: 'nope' })).error).toMatchObject({
      code: -32603,
      data: { kind: 'not_found', param: 'id' },
    });
    expect((await rpc('memory.inspect', { tenantId: 'acme' })).error).toMatchObject({
      code: -32603,
      data: { kind: 'forbidden', param: 'tenantId' },
    });
    expect((await admin('memory.inspect', { tenantId: 'acme' })).result).toMatchObject({ stats: { totalEntries: 0 } });
  });

  it('memory.browse pages newest first with the total; admin only', async () => {
    const { result } = await admin('memory.browse', { offset: 1, limit: 1 });
    expect(result).toMatchObject({ total: 3, offset: 1, limit: 1, entries: [{ id: stored[1] }] });
    expect((await admin('memory.browse', {})).result).toMatchObject({
      total: 3,
      entries: [{ id: stored[2] }, { id: stored[1] }, { id: stored[0] }],
    });
    expect((await admin('memory.browse', { offset: -1 })).error).toMatchObject({ code: -32602 });
    expect((await admin('memory.browse', { limit: 501 })).error).toMatchObject({ code: -32602 });
    expect((await rpc('memory.browse', {})).error).toMatchObject({
      code: -32603,
      message: "Insufficient scope: requires 'admin'",
    });
  });

  it('memory.stats names the embedder; memory.embeddingCache reports size, hit rate and evictions; memory.export lists all', async () => {
    expect((await admin('memory.stats')).result).toMatchObject({
      totalEntries: 3,
      embeddingProvider: 'builtin/hashing-256',
      dbSizeBytes: expect.any(Number),
      cacheHitRate: expect.any(Number),
    });
    expect((await admin('memory.embeddingCache')).result).toEqual({
      size: expect.any(Number),
      hits: expect.any(Number),
      misses: expect.any(Number),
      hitRate: expect.any(Number),
      evictions: expect.any(Number),
    });
    const exported = (await admin('memory.export')).result as {
      entries: Entry[];
      exportedAt: string;
      totalEntries: number;
    };
    expect(exported.totalEntries).toBe(3);
    expect(exported.entries.map((entry) => entry.id).sort()).toEqual([...stored].sort());
    expect(new Date(exported.exportedAt).toISOString()).toBe(exported.exportedAt);
    for (const method of ['memory.stats', 'memory.embeddingCache', 'memory.export', 'memory.flush', 'memory.delete']) {
      expect((await rpc(method, method === 'memory.delete' ? { id: 'x' } : {})).error, method).toMatchObject({
        code: -32603,
        message: "Insufficient scope: requires 'admin'",
      });
    }
    expect((await admin('memory.stats', { extra: true })).error).toMatchObject({ code: -32602 });
  });

  it('GET /api/memory/search answers results for q, limit 1-100 default 10, and 400/401/403 otherwise', async () => {
    const ok = await get('/api/memory/search?q=coffee', harness.tokens.rpc);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { results: Entry[] }).results[0]).toMatchObject({ id: stored[1] });
    for (const query of [
      '',
      '?q=',
      '?q=x&limit=0',
      '?q=x&limit=101',
      '?q=x&limit=abc',
      '?q=x&limit=2.5',
      '?q=x&other=1',
    ]) {
      const response = await get(`/api/memory/search${query}`, harness.tokens.rpc);
      expect(response.status, query).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'invalid_params', message: expect.any(String) } });
    }
    expect((await get('/api/memory/search?q=x&limit=100', harness.tokens.rpc)).status).toBe(200);
    expect((await get('/api/memory/search?q=x')).status).toBe(401);
    expect((await get('/api/memory/search?q=x', harness.tokens.api)).status).toBe(403);
  });

  it('GET /api/memory/stats answers the caller tenant statistics', async () => {
    const response = await get('/api/memory/stats', harness.tokens.rpc);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ totalEntries: 3, embeddingProvider: 'builtin/hashing-256' });
    expect((await get('/api/memory/stats')).status).toBe(401);
  });

  it('memory.delete removes one entry; memory.flush removes the rest and is audited', async () => {
    expect((await admin('memory.delete', { id: stored[0] })).result).toEqual({ id: stored[0], deleted: true });
    expect((await admin('memory.delete', { id: stored[0] })).error).toMatchObject({
      code: -32603,
      data: { kind: 'not_found' },
    });
    expect((await admin('memory.flush')).result).toEqual({ flushed: true, deletedCount: 2 });
    expect((await admin('memory.stats')).result).toMatchObject({ totalEntries: 0 });
    const { rows } = (await admin('obs.audit.query', { kind: 'rpc.call', tenant: '' })).result as { rows: AuditRow[] };
    expect(rows.find((row) => row.action === 'memory.flush')).toMatchObject({ actor: TOKEN_IDS.admin, outcome: 'ok' });
  });
});
