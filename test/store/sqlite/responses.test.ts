// The SQLite ResponsePort: the shared conformance cases, and records that survive a reopen of the file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteResponsePort, openDatabase, type SqliteDatabase } from '../../../src/store/sqlite/index.js';
import { responsePortCases, responseRecord as record } from '../responses.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

responsePortCases('sqlite', async () => {
  const { db, close } = await openTemporaryDatabase();
  return { port: createSqliteResponsePort(db), close };
});

describe('sqlite response port', () => {
  let dir: string;
  let path: string;
  let db: SqliteDatabase;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-responses-'));
    path = join(dir, 'gateway.db');
    db = openDatabase({ path });
  });
  afterEach(async () => {
    if (db.open) db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps records across a reopen of the database file', async () => {
    await createSqliteResponsePort(db).save(record);
    db.close();
    db = openDatabase({ path });
    expect(await createSqliteResponsePort(db).get('resp_1')).toEqual(record);
  });
});
