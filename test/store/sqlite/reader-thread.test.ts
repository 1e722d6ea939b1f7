// The SQLite reader thread: it starts at its first use and is available once its connection is open, answers queries
// with rows as arrays, sees what the main connection committed before each query, and fails only the query at fault.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createReaderThread, openDatabase, type ReaderThread, type SqliteDatabase } from '../../../src/store/sqlite/index.js';

describe('sqlite reader thread', () => {
  let dir: string;
  let path: string;
  let db: SqliteDatabase;
  let reader: ReaderThread;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-reader-'));
    path = join(dir, 'gateway.db');
    db = openDatabase({ path });
    db.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL); INSERT INTO items VALUES (1, 'a'), (2, 'b')");
    reader = createReaderThread(path);
  });
  afterEach(async () => {
    await reader.close();
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const started = () => vi.waitFor(() => expect(reader.available()).toBe(true));

  it('is not available before its first use, then is once its connection is open', async () => {
    await expect(reader.rows('SELECT 1', [])).rejects.toThrow(/has not started/);
    expect(reader.available()).toBe(false);
    await started();
    expect(await reader.rows('SELECT id, label FROM items WHERE id > ? ORDER BY id', [0])).toEqual([[1, 'a'], [2, 'b']]);
  });

  it('sees every write the main connection committed before the query', async () => {
    await started();
    db.prepare('INSERT INTO items VALUES (?, ?)').run(3, 'c');
    expect(await reader.rows('SELECT label FROM items ORDER BY id', [])).toEqual([['a'], ['b'], ['c']]);
  });

  it('rejects a failing query with its error, and answers the next; it never writes', async () => {
    await started();
    await expect(reader.rows('SELECT nope FROM items', [])).rejects.toThrow(/no such column: nope/);
    await expect(reader.rows("INSERT INTO items VALUES (9, 'z') RETURNING id", [])).rejects.toThrow(/readonly database/);
    expect(await reader.rows('SELECT count(*) FROM items', [])).toEqual([[2]]);
  });

  it('is no longer available once closed, and refuses queries', async () => {
    await started();
    await reader.close();
    expect(reader.available()).toBe(false);
    await expect(reader.rows('SELECT 1', [])).rejects.toThrow(/reader thread has ended/);
  });
});
