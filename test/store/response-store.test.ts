// The SQLite ResponseStore: response ids map to the session they ran in, and survive a reopen of the file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../src/store/index.js';
import { createSqliteResponseStore } from '../../src/store/response-store.js';

describe('sqlite response store', () => {
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

  const record = { responseId: 'resp_1', sessionKey: 'default:openai-api:openai:resp_1', clientId: 'api-client', createdAt: 1_700_000_000_000 };

  it('returns the saved record by response id, and undefined for an unknown id', () => {
    const store = createSqliteResponseStore(db);
    store.save(record);
    expect(store.get('resp_1')).toEqual(record);
    expect(store.get('resp_unknown')).toBeUndefined();
  });

  it('keeps records across a reopen of the database file', () => {
    createSqliteResponseStore(db).save(record);
    db.close();
    db = openDatabase({ path });
    expect(createSqliteResponseStore(db).get('resp_1')).toEqual(record);
  });

  it('refuses a second record with the same response id', () => {
    const store = createSqliteResponseStore(db);
    store.save(record);
    expect(() => store.save({ ...record, sessionKey: 'default:openai-api:openai:other' })).toThrow();
  });
});
