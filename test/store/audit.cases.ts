// AuditPort conformance: what every backend must do with audit rows (append, filters, order, limit).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditPort, AuditRow } from '../../src/store/index.js';

export interface AuditPortHandle {
  port: AuditPort;
  close(): Promise<void>;
}

const row = (overrides: Partial<AuditRow> & Pick<AuditRow, 'id' | 'ts'>): AuditRow => ({
  tenantId: '',
  agentId: null,
  kind: 'tool',
  classification: 'unclassified',
  action: 'unknown',
  actor: 'system',
  outcome: 'ok',
  severity: 'info',
  traceId: null,
  refs: '{}',
  ...overrides,
});

export function auditPortCases(name: string, open: () => Promise<AuditPortHandle>): void {
  describe(`AuditPort conformance: ${name}`, () => {
    let handle: AuditPortHandle;
    beforeEach(async () => {
      handle = await open();
    });
    afterEach(async () => {
      await handle.close();
    });

    it('returns what was appended, field for field', async () => {
      const stored = row({
        id: 'a1',
        ts: 5,
        tenantId: 'acme',
        agentId: 'default',
        traceId: 't1',
        refs: '{"path":"x"}',
        severity: 'warning',
      });
      await handle.port.append([stored]);
      expect(await handle.port.query({ limit: 10 })).toEqual([stored]);
    });

    it('filters by kind, classification, agent, tenant ("" = system) and outcome; since and until are inclusive', async () => {
      await handle.port.append([
        row({ id: 'r1', ts: 100, tenantId: 'acme', agentId: 'a', classification: 'c1' }),
        row({ id: 'r2', ts: 200, tenantId: 'acme', agentId: 'b', outcome: 'denied', classification: 'c2' }),
        row({ id: 'r3', ts: 300, kind: 'config' }),
        row({ id: 'r4', ts: 400, tenantId: 'other', agentId: 'a' }),
      ]);
      const ts = async (filter: Omit<Parameters<AuditPort['query']>[0], 'limit'>) =>
        (await handle.port.query({ ...filter, limit: 100 })).map((found) => found.ts);
      expect(await ts({})).toEqual([400, 300, 200, 100]);
      expect(await ts({ tenant: '' })).toEqual([300]);
      expect(await ts({ tenant: 'acme' })).toEqual([200, 100]);
      expect(await ts({ kind: 'tool', agentId: 'a' })).toEqual([400, 100]);
      expect(await ts({ outcome: 'denied' })).toEqual([200]);
      expect(await ts({ classification: 'c1' })).toEqual([100]);
      expect(await ts({ since: 200, until: 300 })).toEqual([300, 200]);
    });

    it('orders by ts descending, then id descending, and returns at most limit rows', async () => {
      await handle.port.append([row({ id: 'b', ts: 1 }), row({ id: 'a', ts: 1 }), row({ id: 'c', ts: 2 })]);
      expect((await handle.port.query({ limit: 10 })).map((found) => found.id)).toEqual(['c', 'b', 'a']);
      expect((await handle.port.query({ limit: 2 })).map((found) => found.id)).toEqual(['c', 'b']);
    });

    it('pages after a cursor row (ts, then id) without skipping rows that share a millisecond', async () => {
      await handle.port.append([
        row({ id: 'a', ts: 5 }),
        row({ id: 'b', ts: 5 }),
        row({ id: 'c', ts: 5 }),
        row({ id: 'd', ts: 4 }),
        row({ id: 'e', ts: 6, kind: 'other' }),
      ]);
      const first = await handle.port.query({ kind: 'tool', limit: 2 });
      expect(first.map((found) => found.id)).toEqual(['c', 'b']);
      const last = first[1];
      if (last === undefined) throw new Error('no row');
      const next = await handle.port.query({ kind: 'tool', limit: 2, before: { ts: last.ts, id: last.id } });
      expect(next.map((found) => found.id)).toEqual(['a', 'd']);
    });

    it('lists the distinct kinds, agents, outcomes, classifications and actors, sorted', async () => {
      await handle.port.append([
        row({ id: 'a', ts: 1, kind: 'rpc.call', agentId: 'beta', outcome: 'ok', actor: 'admin-1' }),
        row({ id: 'b', ts: 2, kind: 'approval', agentId: 'alpha', outcome: 'denied', classification: 'admin' }),
        row({ id: 'c', ts: 3, kind: 'rpc.call', agentId: null, outcome: 'ok', actor: 'admin-1' }),
      ]);
      expect(await handle.port.facets()).toEqual({
        kinds: ['approval', 'rpc.call'],
        agentIds: ['alpha', 'beta'],
        outcomes: ['denied', 'ok'],
        classifications: ['admin', 'unclassified'],
        actors: ['admin-1', 'system'],
      });
    });

    it('writes a batch whole or not at all', async () => {
      await handle.port.append([row({ id: 'dup', ts: 1 })]);
      await expect(handle.port.append([row({ id: 'fresh', ts: 2 }), row({ id: 'dup', ts: 3 })])).rejects.toThrow();
      expect((await handle.port.query({ limit: 10 })).map((found) => found.id)).toEqual(['dup']);
    });
  });
}
