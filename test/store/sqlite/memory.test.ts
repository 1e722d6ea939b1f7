// The SQLite MemoryPort: the shared conformance cases on both vector lanes (sketches with a rerank, and exact cosine)
// and with lexical queries on a reader thread,
// and what only a file shows: vectors, sketches and cached embeddings survive a reopen, and a failed write loses nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  applyMigrations,
  createReaderThread,
  createSqliteMemoryPort,
  MIGRATIONS,
  openDatabase,
  openSqliteStore,
  type SqliteDatabase,
  type SqliteMemoryPortOptions,
} from '../../../src/store/sqlite/index.js';
import { memoryEntry, memoryPortCases, vector, type MemoryFixtureOptions } from '../memory.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

function portOptions(options: MemoryFixtureOptions | undefined, exactVectorSearch: boolean): SqliteMemoryPortOptions {
  return {
    exactVectorSearch,
    ...(options?.embeddingCacheMaxEntries === undefined
      ? {}
      : { embeddingCacheMaxEntries: options.embeddingCacheMaxEntries, embeddingCacheEvictionBatch: 1 }),
    ...(options?.now === undefined ? {} : { now: options.now }),
  };
}

for (const exact of [false, true]) {
  memoryPortCases(exact ? 'sqlite, exact cosine' : 'sqlite, sketches', async (options) => {
    const { db, close } = await openTemporaryDatabase();
    const port = createSqliteMemoryPort(db, portOptions(options, exact));
    expect(port.vectorSearch).toBe(exact ? 'exact' : 'sketch');
    return { port, close };
  });
}

memoryPortCases('sqlite, sketches, lexical queries on a reader thread', async (options) => {
  const { db, close } = await openTemporaryDatabase();
  const reader = createReaderThread(db.name);
  await vi.waitFor(() => expect(reader.available()).toBe(true));
  const port = createSqliteMemoryPort(db, portOptions(options, false), reader);
  return {
    port,
    close: async () => {
      await reader.close();
      await close();
    },
  };
});

describe('sqlite memory port', () => {
  let dir: string;
  let path: string;
  let db: SqliteDatabase;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-memory-'));
    path = join(dir, 'gateway.db');
    db = openDatabase({ path });
  });
  afterEach(async () => {
    if (db.open) db.close();
    await rm(dir, { recursive: true, force: true });
  });
  const reopen = () => {
    db.close();
    db = openDatabase({ path });
    return db;
  };

  it('keeps entries, vectors and cached embeddings across a reopen of the file', async () => {
    const first = createSqliteMemoryPort(db);
    await first.insert(memoryEntry('m1', { content: 'kept words' }), vector('m', 1, 0));
    await first.cacheEmbedding('m', 'hash', Float32Array.from([0.25, 0.5]));
    const second = createSqliteMemoryPort(reopen());
    expect((await second.searchVector(vector('m', 1, 0), {}, 5)).map((hit) => hit.id)).toEqual(['m1']);
    expect((await second.searchLexical('kept', {}, 5)).map((hit) => hit.id)).toEqual(['m1']);
    expect(await second.cachedEmbedding('m', 'hash')).toEqual(Float32Array.from([0.25, 0.5]));
  });

  it('ranks what the file holds after another connection changed it, sketching vectors stored without a sketch', async () => {
    const first = createSqliteMemoryPort(db);
    await first.insert(memoryEntry('before'), vector('m', 1, 0));
    await first.insert(memoryEntry('deleted-later'), vector('m', 1, 0.1));
    expect((await first.searchVector(vector('m', 1, 0), {}, 10)).map((hit) => hit.id)).toEqual([
      'before',
      'deleted-later',
    ]);
    const exact = createSqliteMemoryPort(reopen(), { exactVectorSearch: true });
    await exact.insert(memoryEntry('during'), vector('m', 1, 0.2));
    await exact.insert(memoryEntry('new-model'), vector('other', 1, 0));
    expect(await exact.delete('deleted-later', {})).toBe(true);
    await exact.sweep(
      'agent-1',
      { demoteAfterMs: 0, evictAfterMs: Number.MAX_SAFE_INTEGER, maxDemotedPerAgent: 100 },
      Date.now(),
    );
    // As a file written before sketches were stored.
    db.prepare('UPDATE memory_vectors SET sketch = NULL').run();
    const again = createSqliteMemoryPort(reopen());
    expect(again.vectorSearch).toBe('sketch');
    expect((await again.searchVector(vector('m', 1, 0), {}, 10)).map((hit) => hit.id)).toEqual(['before', 'during']);
    expect((await again.searchVector(vector('m', 1, 0), { status: 'active' }, 10)).map((hit) => hit.id)).toEqual([]);
    expect((await again.searchVector(vector('other', 1, 0), { status: 'demoted' }, 10)).map((hit) => hit.id)).toEqual([
      'new-model',
    ]);
    expect(db.prepare('SELECT COUNT(*) FROM memory_vectors WHERE sketch IS NULL').pluck().get()).toBe(0);
  });

  it('reads the sketches in the background once opened, before any search', async () => {
    const first = createSqliteMemoryPort(db);
    for (let index = 0; index < 5_000; index += 1)
      await first.insert(memoryEntry(`m${index}`), vector('m', 1, index / 5_000));
    db.prepare('UPDATE memory_vectors SET sketch = NULL').run();
    createSqliteMemoryPort(reopen());
    const unsketched = db.prepare('SELECT COUNT(*) FROM memory_vectors WHERE sketch IS NULL').pluck();
    expect(unsketched.get()).toBe(5_000);
    // vi.waitFor gives up after 1 s by default; 5,000 sketches on a loaded CI machine can take longer than that.
    await vi.waitFor(() => expect(unsketched.get()).toBe(0), { timeout: 15_000, interval: 50 });
  });

  it('keeps ranking an entry whose delete failed and rolled back', async () => {
    const memory = createSqliteMemoryPort(db);
    await memory.insert(memoryEntry('kept'), vector('m', 1, 0));
    expect((await memory.searchVector(vector('m', 1, 0), {}, 5)).map((hit) => hit.id)).toEqual(['kept']);
    db.exec("CREATE TRIGGER refuse_delete BEFORE DELETE ON memory_entries BEGIN SELECT RAISE(ABORT, 'refused'); END");
    await expect(memory.delete('kept', {})).rejects.toThrow('refused');
    await expect(memory.flush({ tenantId: 'tenant-a' })).rejects.toThrow('refused');
    expect((await memory.searchVector(vector('m', 1, 0), {}, 5)).map((hit) => hit.id)).toEqual(['kept']);
  });

  it('evicts in batches past the cap, counting each evicted vector', async () => {
    let clock = 0;
    const memory = createSqliteMemoryPort(db, {
      embeddingCacheMaxEntries: 10,
      embeddingCacheEvictionBatch: 4,
      now: () => clock,
    });
    for (let index = 0; index < 11; index += 1) {
      clock += 1;
      await memory.cacheEmbedding('m', `h${index}`, Float32Array.from([index]));
    }
    expect(await memory.embeddingCacheStats()).toMatchObject({ entries: 7, evictions: 4 });
    expect(await memory.cachedEmbedding('m', 'h3')).toBeUndefined();
    expect(await memory.cachedEmbedding('m', 'h4')).toEqual(Float32Array.from([4]));
  });

  it('is built by openSqliteStore on the store connection', async () => {
    db.close();
    const store = openSqliteStore({ path, memory: { exactVectorSearch: true } });
    try {
      await store.memory.insert(memoryEntry('m1', { content: 'through the store' }));
      expect((await store.memory.searchLexical('store', { tenantId: 'tenant-a' }, 5)).map((hit) => hit.id)).toEqual([
        'm1',
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('migration 18: memory owners', () => {
  it("gives each entry its source session's owner (else none: an operator's) and rebuilds the full-text scopes, so older entries stay searchable", async () => {
    const { db, close } = await openTemporaryDatabase({
      migrations: MIGRATIONS.filter((migration) => migration.version < 18),
    });
    try {
      const session = db.prepare(
        'INSERT INTO sessions (session_key, agent_id, tenant_id, kind, created_at, updated_at, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
      );
      session.run('tenant-a:alice:chat', 'agent-1', 'tenant-a', 'dm', 1, 1, 'tok-a');
      session.run('tenant-a:old:chat', 'agent-1', 'tenant-a', 'dm', 1, 1, null);
      const entry = db.prepare(
        'INSERT INTO memory_entries (id, tenant_id, agent_id, content, memory_type, trust_level, source_session_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      );
      entry.run(
        'mine',
        'tenant-a',
        'agent-1',
        'the lighthouse keeper feeds the gulls',
        'fact',
        'trusted',
        'tenant-a:alice:chat',
        1,
      );
      entry.run(
        'ownerless',
        'tenant-a',
        'agent-1',
        'the lighthouse lamp is replaced in may',
        'fact',
        'trusted',
        'tenant-a:old:chat',
        2,
      );
      entry.run('operator', 'tenant-a', 'agent-1', 'the lighthouse opens at dawn', 'fact', 'trusted', null, 3);
      entry.run(
        'gone',
        'tenant-a',
        'agent-1',
        'the lighthouse from a deleted session',
        'fact',
        'trusted',
        'tenant-a:deleted:chat',
        4,
      );
      for (let index = 0; index < 10; index += 1)
        entry.run(`other${index}`, 'tenant-b', 'agent-1', `unrelated words ${index}`, 'fact', 'trusted', null, 5);

      expect(
        applyMigrations(
          db,
          MIGRATIONS.filter((migration) => migration.version <= 18),
        ),
      ).toEqual([18]);
      const owners = db
        .prepare<[], { id: string; owner_id: string | null }>(
          "SELECT id, owner_id FROM memory_entries WHERE tenant_id = 'tenant-a' ORDER BY id",
        )
        .all();
      expect(owners).toEqual([
        { id: 'gone', owner_id: null },
        { id: 'mine', owner_id: 'tok-a' },
        { id: 'operator', owner_id: null },
        { id: 'ownerless', owner_id: null },
      ]);
      const port = createSqliteMemoryPort(db);
      // A's scope is a small part of the store: its search matches through the rebuilt owner tokens.
      const own = { tenantId: 'tenant-a', agentId: 'agent-1', readableBy: { ownerId: 'tok-a', tenantIds: [] } };
      expect((await port.searchLexical('lighthouse', own, 10)).map((hit) => hit.id)).toEqual(['mine']);
      expect(
        (await port.searchLexical('lighthouse', { readableBy: { ownerId: 'tok-a', tenantIds: [] } }, 10)).map(
          (hit) => hit.id,
        ),
      ).toEqual(['mine']);
      expect(
        (await port.searchLexical('lighthouse', { tenantId: 'tenant-a', agentId: 'agent-1' }, 10))
          .map((hit) => hit.id)
          .sort(),
      ).toEqual(['gone', 'mine', 'operator', 'ownerless']);
      // Entries stored after the migration get the tokens from the new trigger.
      await port.insert(memoryEntry('later', { ownerId: 'tok-a', content: 'the lighthouse got a new coat of paint' }));
      expect((await port.searchLexical('lighthouse', own, 10)).map((hit) => hit.id).sort()).toEqual(['later', 'mine']);
    } finally {
      await close();
    }
  });
});
