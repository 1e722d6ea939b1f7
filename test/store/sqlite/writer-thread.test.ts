// The SQLite writer thread: batches land in order, a failing batch writes nothing and fails only its own caller,
// and close() writes everything sent before it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWriterThread, openDatabase, type SqliteDatabase } from '../../../src/store/sqlite/index.js';

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
});
