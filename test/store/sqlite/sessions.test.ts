// The SQLite SessionPort: the shared conformance cases plus SQLite specifics (FTS5 index, file reopen, migrations).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  applyMigrations,
  createSqliteSessionPort,
  MIGRATIONS,
  openDatabase,
  openSqliteStore,
  toFtsQuery,
  type SqliteDatabase,
} from '../../../src/store/sqlite/index.js';
import { sessionPortCases } from '../sessions.cases.js';

sessionPortCases('sqlite', async () => {
  // The bundle app.ts opens, so that reopen() shuts down through StorePorts.close() as the gateway does.
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-sessions-'));
  const path = join(dir, 'gateway.db');
  let store = openSqliteStore({ path });
  let isOpen = true;
  const others: SqliteDatabase[] = [];
  return {
    port: store.sessions,
    async reopen() {
      await store.close();
      store = openSqliteStore({ path });
      return store.sessions;
    },
    async otherConnection() {
      const db = openDatabase({ path });
      others.push(db);
      return createSqliteSessionPort(db);
    },
    runs: () => store.runs,
    async close() {
      if (isOpen) await store.close();
      isOpen = false;
      for (const db of others) db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('sqlite session store', () => {
  let dir: string;
  let db: SqliteDatabase;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-sessions-'));
    db = openDatabase({ path: join(dir, 'gateway.db') });
  });
  afterEach(async () => {
    if (db.open) db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const session = (sessionKey: string) => ({
    sessionKey,
    agentId: 'default',
    tenantId: 'default',
    kind: 'dm' as const,
    createdAt: 1,
    metadata: {},
    ownerId: 'owner',
  });

  it('keeps the FTS5 index consistent through append, replace, clear and cascading delete', async () => {
    const store = createSqliteSessionPort(db);
    await store.ensure(session('default:a:ws'));
    await store.ensure(session('default:b:ws'));
    await store.append('default:a:ws', [{ role: 'user', content: 'alpha beta', timestamp: 1 }], 2);
    await store.append('default:b:ws', [{ role: 'user', content: 'beta gamma', timestamp: 1 }], 2);
    await store.replaceHistory('default:a:ws', [{ role: 'system', content: 'delta', timestamp: 1 }], 3);
    await store.clearMessages('default:b:ws', 4);
    await store.append('default:b:ws', [{ role: 'user', content: 'epsilon', timestamp: 5 }], 5);
    await store.delete('default:a:ws');
    expect(() =>
      db.prepare("INSERT INTO session_messages_fts (session_messages_fts, rank) VALUES ('integrity-check', 1)").run(),
    ).not.toThrow();
    const indexed = db.prepare('SELECT count(*) FROM session_messages_fts').pluck().get();
    const stored = db.prepare('SELECT count(*) FROM session_messages').pluck().get();
    expect(indexed).toBe(stored);
    expect(stored).toBe(1);
    expect(await store.search('delta', 5)).toEqual([]);
    expect((await store.search('epsilon', 5)).map((hit) => hit.sessionKey)).toEqual(['default:b:ws']);
  });

  it('keeps sessions and transcripts across a reopen of the file', async () => {
    await createSqliteSessionPort(db).ensure(session('default:a:ws'));
    await createSqliteSessionPort(db).append('default:a:ws', [{ role: 'user', content: 'persisted', timestamp: 7 }], 8);
    // The append waits in the connection's queue until a flush; StorePorts.close() flushes before closing the file.
    createSqliteSessionPort(db).flush();
    db.close();
    db = openDatabase({ path: join(dir, 'gateway.db') });
    const store = createSqliteSessionPort(db);
    expect((await store.get('default:a:ws'))?.messageCount).toBe(1);
    expect(await store.history('default:a:ws')).toEqual([{ role: 'user', content: 'persisted', timestamp: 7 }]);
  });

  it('rolls back a whole append when one message fails to insert', async () => {
    const store = createSqliteSessionPort(db);
    await store.ensure(session('default:a:ws'));
    const bad = { role: 'user', content: null, timestamp: 1 } as unknown as {
      role: 'user';
      content: string;
      timestamp: number;
    };
    await expect(
      store.append('default:a:ws', [{ role: 'user', content: 'ok', timestamp: 1 }, bad], 2),
    ).rejects.toThrow();
    expect((await store.get('default:a:ws'))?.messageCount).toBe(0);
    expect(await store.history('default:a:ws')).toEqual([]);
  });
});

describe('migration 6: session owners', () => {
  it('backfills owner_id from metadata.requestedBy, leaving NULL (admins only) where there is none', async () => {
    const db = openDatabase({ path: ':memory:', migrations: MIGRATIONS.filter((migration) => migration.version < 6) });
    const throughVersion6 = MIGRATIONS.filter((migration) => migration.version <= 6);
    try {
      const insert = db.prepare(
        'INSERT INTO sessions (session_key, agent_id, tenant_id, kind, created_at, updated_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)',
      );
      insert.run(
        'default:a:ws',
        'default',
        'default',
        'dm',
        1,
        5,
        JSON.stringify({ requestedBy: 'rpc-client', usage: { turns: 1 } }),
      );
      insert.run('default:b:webhook:1', 'default', 'default', 'dm', 1, 6, '{}');
      insert.run('default:c:ws', 'default', 'default', 'dm', 1, 7, JSON.stringify({ requestedBy: 42 }));
      insert.run('default:d:ws', 'default', 'default', 'dm', 1, 8, 'not json');
      expect(applyMigrations(db, throughVersion6)).toEqual([6]);
      expect(
        applyMigrations(
          db,
          MIGRATIONS.filter((migration) => migration.version <= 7),
        ),
      ).toEqual([7]);
      const store = createSqliteSessionPort(db);
      const ownerOf = db
        .prepare<[string], string | null>('SELECT owner_id FROM sessions WHERE session_key = ?')
        .pluck();
      expect(
        ['default:a:ws', 'default:b:webhook:1', 'default:c:ws', 'default:d:ws'].map((key) => ownerOf.get(key)),
      ).toEqual(['rpc-client', null, null, null]);
      // The backfill changes no other column: the sessions keep their update times.
      expect(await store.get('default:a:ws')).toMatchObject({
        updatedAt: 5,
        messageCount: 0,
        metadata: { requestedBy: 'rpc-client' },
      });
      expect((await store.list({ ownedBy: 'rpc-client' })).map((session) => session.sessionKey)).toEqual([
        'default:a:ws',
      ]);
    } finally {
      db.close();
    }
  });
});

describe('migration 7: session usage columns', () => {
  it('carries usage totals over from metadata, so sessions read back exactly as before and keep counting', async () => {
    const db = openDatabase({ path: ':memory:', migrations: MIGRATIONS.filter((migration) => migration.version < 7) });
    try {
      const insert = db.prepare(
        'INSERT INTO sessions (session_key, agent_id, tenant_id, kind, created_at, updated_at, metadata, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      );
      const used = {
        requestedBy: 'rpc-client',
        usage: { totalTokens: 120, totalCost: 0.25, stepsExecuted: 4, turns: 3 },
        topic: 'x',
      };
      insert.run('default:a:ws', 'default', 'default', 'dm', 1, 5, JSON.stringify(used), 'rpc-client');
      insert.run(
        'default:b:ws',
        'default',
        'default',
        'dm',
        1,
        6,
        JSON.stringify({ requestedBy: 'rpc-client' }),
        'rpc-client',
      );
      // Malformed metadata (never written by the gateway) must not fail the migration.
      insert.run('default:c:ws', 'default', 'default', 'dm', 1, 7, 'not json', null);
      expect(
        applyMigrations(
          db,
          MIGRATIONS.filter((migration) => migration.version <= 7),
        ),
      ).toEqual([7]);
      const store = createSqliteSessionPort(db);
      expect(await store.get('default:a:ws')).toMatchObject({ updatedAt: 5, metadata: used });
      expect((await store.get('default:b:ws'))?.metadata).toEqual({ requestedBy: 'rpc-client' });
      const stored = db.prepare<[string], string>('SELECT metadata FROM sessions WHERE session_key = ?').pluck();
      expect(JSON.parse(stored.get('default:a:ws') ?? '{}')).toEqual({ requestedBy: 'rpc-client', topic: 'x' });
      await store.recordTurnUsage(
        'default:a:ws',
        { totalTokens: 30, totalCost: 0.5, stepsExecuted: 1, requestedBy: 'other' },
        9,
      );
      expect((await store.get('default:a:ws'))?.metadata).toEqual({
        requestedBy: 'other',
        usage: { totalTokens: 150, totalCost: 0.75, stepsExecuted: 5, turns: 4 },
        topic: 'x',
      });
    } finally {
      db.close();
    }
  });
});

describe('migration 8: approval decisions table', () => {
  it('drops the never-written approval_decisions table and keeps the sessions', async () => {
    const db = openDatabase({ path: ':memory:', migrations: MIGRATIONS.filter((migration) => migration.version < 8) });
    try {
      const tables = () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
      expect(tables()).toContain('approval_decisions');
      await createSqliteSessionPort(db).ensure({
        sessionKey: 'default:a:ws',
        agentId: 'default',
        tenantId: 'default',
        kind: 'dm',
        createdAt: 1,
        metadata: {},
        ownerId: 'a',
      });
      expect(
        applyMigrations(
          db,
          MIGRATIONS.filter((migration) => migration.version <= 8),
        ),
      ).toEqual([8]);
      expect(tables()).not.toContain('approval_decisions');
      expect(await createSqliteSessionPort(db).get('default:a:ws')).toMatchObject({ ownerId: 'a' });
    } finally {
      db.close();
    }
  });
});

describe('FTS query building', () => {
  it('quotes every word and drops operators and punctuation', () => {
    expect(toFtsQuery('hello "world" AND (x*')).toBe('"hello" "world" "AND" "x"');
    expect(toFtsQuery('  ')).toBe('');
    expect(toFtsQuery('café über')).toBe('"café" "über"');
  });
});
