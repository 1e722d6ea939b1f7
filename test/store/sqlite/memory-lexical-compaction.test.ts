// The lexical lane's index is merged back into one segment in the background once enough entries were written, and
// searches answer the same before and after.
import { describe, expect, it } from 'vitest';
import type { SqliteDatabase } from '../../../src/store/sqlite/index.js';
import { COMPACT_AFTER_WRITES } from '../../../src/store/sqlite/memory-lexical-compaction.js';
import { memoryEntry } from '../memory.cases.js';
import { useTemporaryMemoryPorts } from './temporary-database.js';

const scope = { tenantId: 'tenant-a', agentId: 'agent-1' };
const WORDS = ['otter', 'harbour', 'lantern', 'quartz', 'meadow', 'falcon', 'copper', 'willow', 'ember', 'glacier'];
const QUERIES = ['otter lantern', 'quartz meadow falcon', 'copper', 'willow ember glacier harbour', 'entry 17'];

/** Each FTS5 segment has at least one row in the index's `_idx` table. */
const segments = (db: SqliteDatabase) =>
  db.prepare<[], number>('SELECT COUNT(DISTINCT segid) FROM memory_fts_idx').pluck().get() ?? 0;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('sqlite lexical index compaction', () => {
  const databases = useTemporaryMemoryPorts();

  async function filled(count: number) {
    const { db, port } = await databases.open();
    // Each insert is its own transaction: a segment each, merged by FTS5's own automerge only in fours.
    for (let index = 0; index < count; index += 1) {
      const words = [0, 3, 7].map((step) => WORDS[(index + step) % WORDS.length]).join(' ');
      await port.insert(memoryEntry(`e${index}`, { ...scope, content: `entry ${index % 50} about ${words}` }));
    }
    const search = async () =>
      Promise.all(QUERIES.map(async (query) => (await port.searchLexical(query, scope, 20)).map((hit) => hit.id)));
    return { db, port, search };
  }

  it('merges the segments once enough entries were written, and finds the same entries', async () => {
    const { db, search } = await filled(COMPACT_AFTER_WRITES);
    const before = await search();
    expect(segments(db)).toBeGreaterThan(1);
    for (let turn = 0; turn < 1_000 && segments(db) > 1; turn += 1) await nextTurn();
    expect(segments(db)).toBe(1);
    expect(await search()).toEqual(before);
    expect(before.flat().length).toBeGreaterThan(0);
  });

  it('leaves the index alone below the threshold', async () => {
    const { db } = await filled(COMPACT_AFTER_WRITES / 4);
    const before = segments(db);
    for (let turn = 0; turn < 50; turn += 1) await nextTurn();
    expect(segments(db)).toBe(before);
    expect(before).toBeGreaterThan(1);
  });

  it('keeps entries deleted while it merges out of the results', async () => {
    const { db, port, search } = await filled(COMPACT_AFTER_WRITES);
    await nextTurn();
    const deleted = new Set<string>();
    for (let index = 0; index < 100; index += 1) {
      await port.delete(`e${index * 3}`, scope);
      deleted.add(`e${index * 3}`);
    }
    const before = await search();
    for (let turn = 0; turn < 1_000 && segments(db) > 1; turn += 1) await nextTurn();
    expect(segments(db)).toBe(1);
    expect(await search()).toEqual(before);
    expect(before.flat().length).toBeGreaterThan(0);
    expect(before.flat().some((id) => deleted.has(id))).toBe(false);
  });
});
