// A fresh SQLite database file in its own temporary directory, for the conformance suites, and a memory port on one
// per test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import {
  createSqliteMemoryPort,
  openDatabase,
  type Migration,
  type SqliteDatabase,
  type SqliteMemoryPort,
} from '../../../src/store/sqlite/index.js';

/** `migrations`: the schema to open with (every migration by default), to test one migration on a file from before it. */
export async function openTemporaryDatabase(
  options: { migrations?: readonly Migration[] } = {},
): Promise<{ db: SqliteDatabase; close: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-store-'));
  const db = openDatabase({
    path: join(dir, 'gateway.db'),
    ...(options.migrations === undefined ? {} : { migrations: options.migrations }),
  });
  return {
    db,
    close: async () => {
      if (db.open) db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Call in a `describe`: `open()` gives a memory port on a fresh database file, closed and removed after the test. */
export function useTemporaryMemoryPorts(): { open: () => Promise<{ db: SqliteDatabase; port: SqliteMemoryPort }> } {
  const opened: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of opened.splice(0)) await close();
  });
  return {
    async open() {
      const { db, close } = await openTemporaryDatabase();
      opened.push(close);
      return { db, port: createSqliteMemoryPort(db) };
    },
  };
}
