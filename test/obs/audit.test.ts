// The audit log: rows recorded directly and announced as audit:event, content-free refs, filters, tenant "" for system events, limits, restarts.
import type { AuditEvent } from '../../src/events/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_MAX_LIMIT } from '../../src/obs/audit.js';
import { delivered, startObs, type ObsStack } from './support.js';

describe('obs audit log', () => {
  let stack: ObsStack | undefined;
  afterEach(async () => stack?.close());

  it('records a content-free row with scrubbed refs and announces it as audit:event', async () => {
    stack = startObs();
    const announced: AuditEvent[] = [];
    stack.events.subscribe((event) => {
      if (event.name === 'audit:event') announced.push(event.payload);
    });
    stack.obs.audit.record({
      tenantId: 'acme',
      agentId: 'default',
      kind: 'tool',
      classification: 'sensitive',
      action: 'fs.write',
      actor: 'agent:default',
      outcome: 'denied',
      severity: 'warning',
      traceId: 't1',
      refs: { path: 'notes/todo.md', content: 'the file body', apiKey: 'sk-123' },
    });
    await delivered();
    expect(announced).toEqual([
      {
        tenantId: 'acme',
        agentId: 'default',
        kind: 'tool',
        classification: 'sensitive',
        action: 'fs.write',
        actor: 'agent:default',
        outcome: 'denied',
        severity: 'warning',
        traceId: 't1',
        refs: { path: 'notes/todo.md' },
      },
    ]);
    const [row] = await stack.obs.audit.query({});
    expect(row).toEqual({
      id: 'id-000001',
      tenantId: 'acme',
      agentId: 'default',
      ts: stack.clock.now,
      kind: 'tool',
      classification: 'sensitive',
      action: 'fs.write',
      actor: 'agent:default',
      outcome: 'denied',
      severity: 'warning',
      traceId: 't1',
      refs: '{"path":"notes/todo.md"}',
    });
  });

  it('digests free text in refs and fills defaults for a bare event', async () => {
    stack = startObs();
    stack.obs.audit.record({ kind: 'config', refs: { note: 'a sentence with spaces', count: 3 } });
    const [row] = await stack.obs.audit.query({ tenant: '' });
    expect(row).toMatchObject({
      tenantId: '',
      agentId: null,
      classification: 'unclassified',
      action: 'unknown',
      actor: 'system',
      outcome: 'unknown',
      severity: 'info',
      traceId: null,
    });
    expect(JSON.parse(row?.refs ?? '{}')).toEqual({ count: 3, note: expect.stringMatching(/^sha256:[0-9a-f]{16}$/) });
  });

  it('filters by kind, classification, agent, tenant ("" = system) and outcome; since and until are inclusive; ts descending', async () => {
    stack = startObs();
    const { obs } = stack;
    obs.audit.record({ ts: 100, kind: 'tool', tenantId: 'acme', agentId: 'a', outcome: 'ok', classification: 'c1' });
    obs.audit.record({
      ts: 200,
      kind: 'tool',
      tenantId: 'acme',
      agentId: 'b',
      outcome: 'denied',
      classification: 'c2',
    });
    obs.audit.record({ ts: 300, kind: 'config', outcome: 'ok' });
    obs.audit.record({ ts: 400, kind: 'tool', tenantId: 'other', agentId: 'a', outcome: 'ok' });
    const ts = async (filter: Parameters<typeof obs.audit.query>[0]) =>
      (await obs.audit.query(filter)).map((row) => row.ts);
    expect(await ts({})).toEqual([400, 300, 200, 100]);
    expect(await ts({ tenant: '' })).toEqual([300]);
    expect(await ts({ tenant: 'acme' })).toEqual([200, 100]);
    expect(await ts({ kind: 'tool', agentId: 'a' })).toEqual([400, 100]);
    expect(await ts({ outcome: 'denied' })).toEqual([200]);
    expect(await ts({ classification: 'c1' })).toEqual([100]);
    expect(await ts({ since: 200, until: 300 })).toEqual([300, 200]);
    expect(await ts({ limit: 2 })).toEqual([400, 300]);
  });

  it(`defaults to 200 rows and clamps the limit to ${AUDIT_MAX_LIMIT}`, async () => {
    stack = startObs();
    for (let n = 0; n < 1005; n += 1) stack.obs.audit.record({ ts: n, kind: 'tool' });
    expect(await stack.obs.audit.query({})).toHaveLength(200);
    expect(await stack.obs.audit.query({ limit: 5000 })).toHaveLength(AUDIT_MAX_LIMIT);
  });

  it('rows survive a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'obs-audit-'));
    try {
      const first = startObs(join(dir, 'gateway.db'));
      first.obs.audit.record({ kind: 'tool', tenantId: 'acme' });
      await first.close();
      stack = startObs(join(dir, 'gateway.db'));
      expect(await stack.obs.audit.query({ tenant: 'acme' })).toHaveLength(1);
    } finally {
      await stack?.close();
      stack = undefined;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
