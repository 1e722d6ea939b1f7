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
});
