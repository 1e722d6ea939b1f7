// The SQLite ApprovalPort: the shared conformance cases plus what survives a reopen of the file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteApprovalPort, openDatabase, type SqliteDatabase } from '../../../src/store/sqlite/index.js';
import { approvalPortCases, pendingRequest } from '../approvals.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

approvalPortCases('sqlite', async () => {
  const { db, close } = await openTemporaryDatabase();
  return { port: createSqliteApprovalPort(db), close };
});

describe('sqlite approval port', () => {
  let dir: string;
  let db: SqliteDatabase;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-approvals-store-'));
    db = openDatabase({ path: join(dir, 'gateway.db') });
  });
  afterEach(async () => {
    if (db.open) db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps pending requests, arguments included, across a reopen of the file (migration 13)', async () => {
    const stored = pendingRequest('kept', 100);
    await createSqliteApprovalPort(db).create(stored);
    db.close();
    db = openDatabase({ path: join(dir, 'gateway.db') });
    expect(db.prepare('SELECT version FROM schema_migrations WHERE version = 13').pluck().get()).toBe(13);
    expect(await createSqliteApprovalPort(db).listPending({})).toEqual([stored]);
  });
});
