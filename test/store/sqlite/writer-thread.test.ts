// The SQLite writer thread: batches land in order, a failing batch writes nothing and fails only its own caller,
// and close() writes everything sent before it; the thread starts at the first write, not before.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWriterThread, openDatabase, type SqliteDatabase } from '../../../src/store/sqlite/index.js';
import { createInThreadWriter } from '../../../src/store/sqlite/sql-writer.js';

describe('sqlite writer thread', () => {
  let dir: string;
  let path: string;
  let db: SqliteDatabase;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-writer-'));
    path = join(dir, 'gateway.db');
    db = openDatabase({ path });
    db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL)');
  });
  afterEach(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Threads of this process (Linux): a worker thread is one more. */
  const threadCount = () => readdirSync('/proc/self/task').length;

  const labels = () => db.prepare('SELECT label FROM items ORDER BY id').pluck().all();

  it('writes batches in order, visible to the main connection once each resolves', async () => {
    const thread = createWriterThread(path);
    const writer = thread.writer(['INSERT INTO items (id, label) VALUES (?, ?)']);
    await writer.write([
      [0, 1, 'a'],
      [0, 2, 'b'],
    ]);
    expect(labels()).toEqual(['a', 'b']);
    await Promise.all([writer.write([[0, 3, 'c']]), writer.write([[0, 4, 'd']])]);
    expect(labels()).toEqual(['a', 'b', 'c', 'd']);
    await thread.close();
  });

  it('rolls back a failing batch and rejects only that write; later batches still land', async () => {
    const thread = createWriterThread(path);
    const writer = thread.writer(['INSERT INTO items (id, label) VALUES (?, ?)']);
    await writer.write([[0, 1, 'a']]);
    await expect(
      writer.write([
        [0, 2, 'b'],
        [0, 1, 'duplicate id'],
      ]),
    ).rejects.toThrow(/UNIQUE constraint failed/);
    await writer.write([[0, 3, 'c']]);
    expect(labels()).toEqual(['a', 'c']);
    await thread.close();
  });

  it('close() writes every batch sent before it, then refuses more', async () => {
    const thread = createWriterThread(path);
    const writer = thread.writer(['INSERT INTO items (id, label) VALUES (?, ?)']);
    const pending = Array.from({ length: 50 }, (_, index) => writer.write([[0, index + 1, `item-${index}`]]));
    await thread.close();
    await Promise.all(pending);
    expect(labels()).toHaveLength(50);
    await expect(writer.write([[0, 99, 'late']])).rejects.toThrow(/writer thread has ended/);
  });

  it.runIf(process.platform === 'linux')('starts its thread at the first write, not when it is created', async () => {
    const before = threadCount();
    const thread = createWriterThread(path);
    const writer = thread.writer(['INSERT INTO items (id, label) VALUES (?, ?)']);
    expect(threadCount()).toBe(before);
    await writer.write([[0, 1, 'a']]);
    expect(threadCount()).toBe(before + 1);
    expect(labels()).toEqual(['a']);
    await thread.close();
  });

  it('closes without ever starting a thread when nothing was written, then refuses writes', async () => {
    const thread = createWriterThread(path);
    const writer = thread.writer(['INSERT INTO items (id, label) VALUES (?, ?)']);
    await thread.close();
    await expect(writer.write([[0, 1, 'late']])).rejects.toThrow(/writer thread has ended/);
    expect(labels()).toEqual([]);
  });

  it.runIf(process.platform === 'linux')(
    'a writer given one on this connection writes there, starting no thread, until another writer starts it',
    async () => {
      const before = threadCount();
      const thread = createWriterThread(path);
      const insert = ['INSERT INTO items (id, label) VALUES (?, ?)'];
      const counters = thread.writer(insert, createInThreadWriter(db, insert));
      const evidence = thread.writer(insert);
      await counters.write([[0, 1, 'boot posture']]);
      expect(threadCount()).toBe(before);
      await evidence.write([[0, 2, 'first evidence']]);
      expect(threadCount()).toBe(before + 1);
      await counters.write([[0, 3, 'on the thread']]);
      expect(labels()).toEqual(['boot posture', 'first evidence', 'on the thread']);
      await thread.close();
      await expect(counters.write([[0, 4, 'late']])).rejects.toThrow(/writer thread has ended/);
    },
  );
});
