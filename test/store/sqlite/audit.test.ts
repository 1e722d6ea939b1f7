// The SQLite AuditPort against a real temporary database file: the shared conformance cases plus reopening the file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteAuditPort, openDatabase } from '../../../src/store/sqlite/index.js';
import { auditPortCases } from '../audit.cases.js';

async function tempDatabase() {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-audit-'));
  const path = join(dir, 'gateway.db');
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

auditPortCases('sqlite', async () => {
  const file = await tempDatabase();
  const db = openDatabase({ path: file.path });
  return {
    port: createSqliteAuditPort(db),
    async close() {
      db.close();
      await file.remove();
    },
  };
});

describe('sqlite audit port', () => {
  it('rows survive reopening the file', async () => {
    const file = await tempDatabase();
    try {
      const first = openDatabase({ path: file.path });
      await createSqliteAuditPort(first).append([
        {
          id: 'kept',
          tenantId: 'acme',
          agentId: null,
          ts: 1,
          kind: 'tool',
          classification: 'c',
          action: 'a',
          actor: 's',
          outcome: 'ok',
          severity: 'info',
          traceId: null,
          refs: '{}',
        },
      ]);
      first.close();
      const second = openDatabase({ path: file.path });
      expect(
        (await createSqliteAuditPort(second).query({ tenant: 'acme', limit: 10 })).map((found) => found.id),
      ).toEqual(['kept']);
      second.close();
    } finally {
      await file.remove();
    }
  });
});
