// The content-free audit log over a running gateway: admin calls and scope refusals become rows for obs.audit.query.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRow } from '../../src/obs/index.js';
import { startGateway, TOKEN_IDS, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

describe('audit log', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startGateway();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('records admin calls and refused calls without their params or results', async () => {
    const created = await callRpc(harness.url, harness.tokens.admin, 'tokens.create', {
      id: 'audited',
      scopes: ['rpc'],
    });
    const secret = (created.result as { secret: string }).secret;
    const refused = await callRpc(harness.url, harness.tokens.rpc, 'tokens.list');
    expect(refused.error).toMatchObject({ code: -32603 });
    await callRpc(harness.url, harness.tokens.rpc, 'system.ping');

    const { rows } = (
      await callRpc(harness.url, harness.tokens.admin, 'obs.audit.query', { kind: 'rpc.call', tenant: '' })
    ).result as { rows: AuditRow[] };
    const create = rows.find((row) => row.action === 'tokens.create');
    expect(create).toMatchObject({
      classification: 'admin',
      actor: TOKEN_IDS.admin,
      outcome: 'ok',
      severity: 'info',
      tenantId: '',
    });
    expect(rows.find((row) => row.action === 'tokens.list' && row.actor === TOKEN_IDS.rpc)).toMatchObject({
      outcome: 'denied',
      severity: 'warning',
    });
    // Plain rpc calls are not audited, and nothing of the call's content is kept.
    expect(rows.some((row) => row.action === 'system.ping')).toBe(false);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(JSON.stringify(rows)).not.toContain('"audited"');
  });

  it('leaves calls that change nothing out, unless audit.reads is true', async () => {
    await callRpc(harness.url, harness.tokens.admin, 'tokens.list');
    await callRpc(harness.url, harness.tokens.admin, 'gateway.status');
    await callRpc(harness.url, harness.tokens.admin, 'obs.billing.usage24h');
    await callRpc(harness.url, harness.tokens.admin, 'tokens.create', { id: 'written', scopes: ['rpc'] });
    const actions = await auditedActions(harness);
    expect(actions).toContain('tokens.create');
    for (const read of ['tokens.list', 'gateway.status', 'obs.billing.usage24h', 'obs.audit.query']) {
      expect(actions).not.toContain(read);
    }

    const reading = await startGateway({ audit: { reads: true } });
    try {
      await callRpc(reading.url, reading.tokens.admin, 'tokens.list');
      await callRpc(reading.url, reading.tokens.admin, 'obs.billing.usage24h');
      const audited = await auditedActions(reading);
      expect(audited).toContain('tokens.list');
      expect(audited).toContain('obs.billing.usage24h');
    } finally {
      await reading.close();
    }
  });

  it('pages by cursor through every row, and lists the stored values for filters', async () => {
    for (const id of ['paged-1', 'paged-2', 'paged-3']) {
      await callRpc(harness.url, harness.tokens.admin, 'tokens.create', { id, scopes: ['rpc'] });
    }
    const all = (await queryAudit(harness, { kind: 'rpc.call' })).rows.map((row) => row.id);
    const paged: string[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await queryAudit(harness, { kind: 'rpc.call', limit: 2, ...(cursor ? { cursor } : {}) });
      paged.push(...page.rows.map((row) => row.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(paged).toEqual(all);
    expect(all.length).toBeGreaterThanOrEqual(3);

    const bad = await callRpc(harness.url, harness.tokens.admin, 'obs.audit.query', { cursor: 'not-a-cursor' });
    expect(bad.error).toMatchObject({ code: -32602 });

    const facets = await callRpc(harness.url, harness.tokens.admin, 'obs.audit.facets');
    expect(facets.result).toMatchObject({
      kinds: expect.arrayContaining(['rpc.call']),
      outcomes: expect.arrayContaining(['ok', 'denied']),
      actors: expect.arrayContaining([TOKEN_IDS.admin]),
    });
  });
});

async function queryAudit(
  target: Harness,
  params: Record<string, unknown>,
): Promise<{ rows: AuditRow[]; nextCursor: string | null }> {
  const response = await callRpc(target.url, target.tokens.admin, 'obs.audit.query', params);
  if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
  return response.result as { rows: AuditRow[]; nextCursor: string | null };
}

async function auditedActions(target: Harness): Promise<string[]> {
  const { rows } = await queryAudit(target, { kind: 'rpc.call', tenant: '', outcome: 'ok' });
  return rows.filter((row) => row.actor === TOKEN_IDS.admin).map((row) => row.action);
}
