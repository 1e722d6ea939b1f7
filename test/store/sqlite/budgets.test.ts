// The SQLite BudgetUsagePort: the shared conformance cases on a fresh file, plus the use kept across a reopen.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBudgetUsagePort } from '../../../src/store/shared/index.js';
import { openDatabase, sqliteStoreDb } from '../../../src/store/sqlite/index.js';
import { budgetUsagePortCases } from '../budgets.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

budgetUsagePortCases('sqlite', async () => {
  const { db, close } = await openTemporaryDatabase();
  return { port: createBudgetUsagePort(sqliteStoreDb(db)), close };
});

describe('sqlite budget usage port', () => {
  let dir = '';
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps settled use across a reopen of the file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-budgets-'));
    const path = join(dir, 'gateway.db');
    const before = openDatabase({ path });
    const row = { budgetId: 'cent', bucketStart: Date.UTC(2026, 10, 28), costMicroUsd: 9_000, tokens: 12 };
    await createBudgetUsagePort(sqliteStoreDb(before)).addUsage([row]);
    before.close();
    const after = openDatabase({ path });
    expect(await createBudgetUsagePort(sqliteStoreDb(after)).readUsage(0)).toEqual([row]);
    after.close();
  });
});
