// A fresh SQLite database file in its own temporary directory, for the conformance suites.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type SqliteDatabase } from '../../../src/store/sqlite/index.js';

export async function openTemporaryDatabase(): Promise<{ db: SqliteDatabase; close: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-store-'));
  const db = openDatabase({ path: join(dir, 'gateway.db') });
  return {
    db,
    close: async () => {
      if (db.open) db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
