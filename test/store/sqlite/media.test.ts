// The SQLite MediaPort: the shared conformance cases plus what survives a reopen of the file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteMediaPort, openDatabase, type SqliteDatabase } from '../../../src/store/sqlite/index.js';
import { mediaPortCases, mediaRecord } from '../media.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

mediaPortCases('sqlite', async () => {
  const { db, close } = await openTemporaryDatabase();
  return { port: createSqliteMediaPort(db), close };
});

describe('sqlite media port', () => {
  let dir: string;
  let db: SqliteDatabase;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-media-store-'));
    db = openDatabase({ path: join(dir, 'gateway.db') });
  });
  afterEach(async () => {
    if (db.open) db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps media records across a reopen of the file (migration 15)', async () => {
    const stored = mediaRecord('kept.pdf', { contentType: 'application/pdf' });
    await createSqliteMediaPort(db).create(stored);
    db.close();
    db = openDatabase({ path: join(dir, 'gateway.db') });
    expect(db.prepare('SELECT version FROM schema_migrations WHERE version = 15').pluck().get()).toBe(15);
    expect(await createSqliteMediaPort(db).get('kept.pdf')).toEqual(stored);
  });
});
