// The SQLite reader thread: queries run here until it is up, then there; it sees what the main connection committed
// before each query; and a query it fails, one sent while it is busy, or one it keeps waiting past the stall guard, is
// run here instead.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createReaderThread, type ReaderThread, type SqliteDatabase } from '../../../src/store/sqlite/index.js';
import { openTemporaryDatabase } from './temporary-database.js';

/** Counts the temporary tables: one on the main connection, none on the thread's, so a result tells who ran it. */
const WHO_RAN = 'SELECT count(*) FROM sqlite_temp_master';
const SLOW = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT count(*) FROM c';

describe('sqlite reader thread', () => {
  let path: string;
  let db: SqliteDatabase;
  let closeDb: () => Promise<void>;
  let reader: ReaderThread | undefined;
  beforeEach(async () => {
    ({ db, close: closeDb } = await openTemporaryDatabase());
    path = db.name;
    db.exec(
      "CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL); INSERT INTO items VALUES (1, 'a'), (2, 'b'); CREATE TEMP TABLE marker (x)",
    );
  });
  afterEach(async () => {
    await reader?.close();
    await closeDb();
  });

  const here = (sql: string) => () => Float64Array.from((db.prepare(sql).raw().all() as number[][]).flat());
  const marker = (value: number) => () => Float64Array.of(value);
  const started = async (stallMs: number) => {
    const thread = createReaderThread(path, { stallMs });
    reader = thread;
    expect(thread.available()).toBe(false);
    await vi.waitFor(() => expect(thread.available()).toBe(true));
    return thread;
  };
  const numbers = async (thread: ReaderThread, sql: string, runHere: () => Float64Array, values: number[] = []) => [
    ...(await thread.numbers(sql, values, runHere)),
  ];

  it('runs queries here until the thread is up, then on the thread', async () => {
    const thread = createReaderThread(path, { stallMs: 60_000 });
    reader = thread;
    expect(await numbers(thread, WHO_RAN, here(WHO_RAN))).toEqual([1]);
    expect(thread.available()).toBe(false);
    await vi.waitFor(() => expect(thread.available()).toBe(true));
    expect(await numbers(thread, WHO_RAN, here(WHO_RAN))).toEqual([0]);
  });

  it('answers with the columns of every row end to end, in one Float64Array', async () => {
    const thread = await started(60_000);
    const packed = await thread.numbers(
      'SELECT id, id * 0.5, (SELECT count(*) FROM sqlite_temp_master) FROM items WHERE id > ? ORDER BY id',
      [0],
      marker(-1),
    );
    expect(packed).toBeInstanceOf(Float64Array);
    expect([...packed]).toEqual([1, 0.5, 0, 2, 1, 0]);
  });

  it('sees every write the main connection committed before the query', async () => {
    const thread = await started(60_000);
    db.prepare('INSERT INTO items VALUES (?, ?)').run(3, 'c');
    expect(await numbers(thread, 'SELECT id FROM items ORDER BY id', marker(-1))).toEqual([1, 2, 3]);
  });

  it('runs a query the thread fails here, reporting the error it gets here; the thread never writes', async () => {
    const thread = await started(60_000);
    await expect(thread.numbers('SELECT nope FROM items', [], here('SELECT nope FROM items'))).rejects.toThrow(
      /no such column: nope/,
    );
    expect(await numbers(thread, "INSERT INTO items VALUES (9, 'z') RETURNING id", marker(-1))).toEqual([-1]);
    expect(db.prepare('SELECT count(*) FROM items').pluck().get()).toBe(2);
  });

  it('runs a query here once the thread keeps it waiting past the stall guard', async () => {
    const thread = await started(0);
    // The thread would count three million rows; the query is answered here long before it has.
    expect(await numbers(thread, SLOW, marker(-1))).toEqual([-1]);
  });

  it('runs a query here while the thread is busy with an earlier one, and sends the next to the thread once it is idle', async () => {
    const thread = await started(60_000);
    const slow = numbers(thread, SLOW, marker(-2));
    expect(await numbers(thread, WHO_RAN, here(WHO_RAN))).toEqual([1]);
    expect(await slow).toEqual([3_000_000]);
    expect(await numbers(thread, WHO_RAN, here(WHO_RAN))).toEqual([0]);
  });

  it('is no longer available once closed, and runs queries here', async () => {
    const thread = await started(60_000);
    await thread.close();
    expect(thread.available()).toBe(false);
    expect(await numbers(thread, WHO_RAN, here(WHO_RAN))).toEqual([1]);
  });
});
