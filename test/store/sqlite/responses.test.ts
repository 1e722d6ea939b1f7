// The SQLite ResponsePort: the shared conformance cases, and records that survive a reopen of the file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteResponsePort, openDatabase, type SqliteDatabase } from '../../../src/store/sqlite/index.js';
import { responseBody, responsePortCases, responseRecord as record } from '../responses.cases.js';
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

  it('keeps records and their bodies across a reopen of the database file', async () => {
    await createSqliteResponsePort(db).save(record, responseBody);
    db.close();
    db = openDatabase({ path });
    expect(await createSqliteResponsePort(db).read('resp_1')).toEqual({ ...record, body: responseBody });
  });

  it('reads a response stored before bodies were kept with an undefined body (ended, not in the background)', async () => {
    db.prepare(
      'INSERT INTO openai_responses (response_id, session_key, client_id, created_at) VALUES (?, ?, ?, ?)',
    ).run(record.responseId, record.sessionKey, record.clientId, record.createdAt);
    expect(await createSqliteResponsePort(db).read('resp_1')).toEqual({ ...record, body: undefined });
  });
});
