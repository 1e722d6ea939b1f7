// One migration history on both backends: the shared list runs after each backend's frozen legacy history, numbered
// from 23 on both, applied once; a SQLite file and a PostgreSQL database made at the legacy schema upgrade in place.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryPort, SessionPort, TokenPort } from '../../src/store/index.js';
import {
  createPool,
  createPostgresMemoryPort,
  createPostgresSessionPort,
  migratePostgres,
  openPostgresStore,
  POSTGRES_LEGACY_MIGRATIONS,
  postgresMigrations,
  postgresStoreDb,
} from '../../src/store/postgres/index.js';
import { createTokenPort } from '../../src/store/shared/index.js';
import {
  FIRST_SHARED_VERSION,
  SHARED_MIGRATIONS,
  type SharedMigration,
} from '../../src/store/shared/migrations/index.js';
import {
  applyMigrations,
  createSqliteMemoryPort,
  createSqliteSessionPort,
  createSqliteTokenPort,
  MIGRATIONS,
  openDatabase,
  openSqliteStore,
  SQLITE_LEGACY_MIGRATIONS,
  sqliteMigrations,
  type SqliteDatabase,
} from '../../src/store/sqlite/index.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../support/postgres-server.js';
import { memoryEntry } from './memory.cases.js';

/** A test-only shared migration after the released ones: a column on a table that holds rows, a new table and its index. */
const PINS: SharedMigration = {
  version: Math.max(FIRST_SHARED_VERSION - 1, ...SHARED_MIGRATIONS.map((migration) => migration.version)) + 1,
  name: 'test_session_pins',
  up: (db, dialect) => [
    db.schema
      .alterTable('sessions')
      .addColumn('pinned', dialect === 'sqlite' ? 'integer' : 'boolean', (column) =>
        column.notNull().defaultTo(dialect === 'sqlite' ? 0 : false),
      ),
    db.schema
      .createTable('session_pins')
      .addColumn('session_key', 'text', (column) => column.primaryKey())
      .addColumn('pinned_at', 'bigint', (column) => column.notNull()),
    db.schema.createIndex('session_pins_by_time').on('session_pins').column('pinned_at'),
  ],
};

const KEY = 'tenant-a:alice:chat';
const TOKEN = {
  id: 'tok-a',
  secretHash: 'a'.repeat(64),
  scopes: ['rpc' as const],
  createdAt: '2026-01-01T00:00:00.000Z',
};
const MESSAGES = [
  { role: 'user' as const, content: 'when is the lighthouse lamp replaced?', timestamp: 1_700_000_000_001 },
  { role: 'assistant' as const, content: 'every may, before the season opens', timestamp: 1_700_000_000_002 },
];
const MEMORY = memoryEntry('lamp', {
  content: 'the lighthouse lamp is replaced in may',
  sourceSessionKey: KEY,
  ownerId: TOKEN.id,
});

interface DataPorts {
  sessions: SessionPort;
  tokens: TokenPort;
  memory: MemoryPort;
}

async function writeData({ sessions, tokens, memory }: DataPorts): Promise<void> {
  await tokens.create(TOKEN);
  await sessions.ensure({
    sessionKey: KEY,
    agentId: 'agent-1',
    tenantId: 'tenant-a',
    kind: 'dm',
    createdAt: 1_700_000_000_000,
    metadata: { channelType: 'web' },
    ownerId: TOKEN.id,
  });
  await sessions.append(KEY, MESSAGES, 1_700_000_000_003);
  await memory.insert(MEMORY);
}

async function expectData({ sessions, tokens, memory }: DataPorts): Promise<void> {
  expect(await tokens.findBySecretHash(TOKEN.secretHash)).toEqual(TOKEN);
  expect(await sessions.get(KEY)).toEqual({
    sessionKey: KEY,
    agentId: 'agent-1',
    tenantId: 'tenant-a',
    kind: 'dm',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_003,
    metadata: { channelType: 'web' },
    messageCount: 2,
    ownerId: TOKEN.id,
  });
  expect(await sessions.history(KEY)).toEqual(MESSAGES);
  expect((await sessions.search('season', 10)).map((hit) => hit.sessionKey)).toEqual([KEY]);
  const own = { tenantId: 'tenant-a', readableBy: { ownerId: TOKEN.id, tenantIds: [] } };
  expect(await memory.get('lamp', own)).toMatchObject({ content: MEMORY.content, ownerId: TOKEN.id, status: 'active' });
  expect((await memory.searchLexical('lighthouse', own, 10)).map((hit) => hit.id)).toEqual(['lamp']);
}

describe('shared migrations', () => {
  it('must be numbered from 23 and rising on both backends, or the list is refused', () => {
    const at = (version: number): SharedMigration => ({ ...PINS, version });
    expect(() => sqliteMigrations([at(22)])).toThrow('shared migration 22 must follow 22');
    expect(() => postgresMigrations([at(24), at(24)])).toThrow('shared migration 24 must follow 24');
    expect(sqliteMigrations([at(23), at(24)]).map((migration) => migration.version)).toEqual([
      ...SQLITE_LEGACY_MIGRATIONS.map((migration) => migration.version),
      23,
      24,
    ]);
  });
});

describe('migrations on SQLite', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  async function newPath(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-migrations-'));
    dirs.push(dir);
    return join(dir, 'gateway.db');
  }
  const versionsOf = (db: SqliteDatabase): number[] =>
    db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all() as number[];

  it('applies a shared migration after the legacy history and the released ones, records its version, and skips it on a second run', async () => {
    const path = await newPath();
    const db = openDatabase({ path, migrations: sqliteMigrations([...SHARED_MIGRATIONS, PINS]) });
    try {
      expect(versionsOf(db)).toEqual([...MIGRATIONS.map((migration) => migration.version), PINS.version]);
      db.prepare("INSERT INTO session_pins (session_key, pinned_at) VALUES ('a', 1)").run();
      expect(applyMigrations(db, sqliteMigrations([...SHARED_MIGRATIONS, PINS]))).toEqual([]);
      expect(db.prepare('SELECT session_key, pinned_at FROM session_pins').all()).toEqual([
        { session_key: 'a', pinned_at: 1 },
      ]);
    } finally {
      db.close();
    }
  });

  it('upgrades a file made at the legacy schema in place: its sessions, messages, tokens and memories read as before', async () => {
    const path = await newPath();
    const legacy = openDatabase({ path, migrations: SQLITE_LEGACY_MIGRATIONS });
    const sessions = createSqliteSessionPort(legacy);
    await writeData({ sessions, tokens: createSqliteTokenPort(legacy), memory: createSqliteMemoryPort(legacy) });
    sessions.flush();
    legacy.close();

    // This build's open (the whole history) on the legacy file.
    const store = openSqliteStore({ path });
    try {
      await expectData(store);
    } finally {
      await store.close();
    }

    // A shared migration that changes a table holding rows: the rows stay, with the new column's default.
    const upgraded = openDatabase({ path, migrations: sqliteMigrations([...SHARED_MIGRATIONS, PINS]) });
    try {
      expect(versionsOf(upgraded)).toEqual([...MIGRATIONS.map((migration) => migration.version), PINS.version]);
      expect(upgraded.prepare('SELECT session_key, pinned FROM sessions').all()).toEqual([
        { session_key: KEY, pinned: 0 },
      ]);
      await expectData({
        sessions: createSqliteSessionPort(upgraded),
        tokens: createSqliteTokenPort(upgraded),
        memory: createSqliteMemoryPort(upgraded),
      });
    } finally {
      upgraded.close();
    }
  });
});

describe.skipIf(postgresBinDir === undefined)(
  `migrations on PostgreSQL${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    const server = usePostgresServer();
    const legacyVersions = POSTGRES_LEGACY_MIGRATIONS.map((migration) => migration.version).sort((a, b) => a - b);

    const sharedVersions = SHARED_MIGRATIONS.map((migration) => migration.version);

    it('applies a shared migration after the legacy history and the released ones, records its version, and skips it on a second run', async () => {
      const database = await server().freshDatabase({ empty: true });
      const pool = createPool({ url: database.url, maxConnections: 2 });
      const all = postgresMigrations([...SHARED_MIGRATIONS, PINS]);
      try {
        expect(await migratePostgres(pool, all)).toEqual([...legacyVersions, ...sharedVersions, PINS.version]);
        await pool.query('INSERT INTO session_pins (session_key, pinned_at) VALUES ($1, 1)', ['a']);
        expect(await migratePostgres(pool, all)).toEqual([]);
        const versions = await pool.query<{ version: number }>(
          'SELECT version FROM schema_migrations ORDER BY version',
        );
        expect(versions.rows.map((row) => row.version)).toEqual([...legacyVersions, ...sharedVersions, PINS.version]);
        expect((await pool.query('SELECT session_key, pinned_at FROM session_pins')).rows).toEqual([
          { session_key: 'a', pinned_at: 1 },
        ]);
      } finally {
        await pool.end();
        await database.drop();
      }
    });

    it('upgrades a database made at the legacy schema in place: its sessions, messages, tokens and memories read as before', async () => {
      const database = await server().freshDatabase({ empty: true });
      const pool = createPool({ url: database.url, maxConnections: 2 });
      try {
        expect(await migratePostgres(pool, POSTGRES_LEGACY_MIGRATIONS)).toEqual(legacyVersions);
        const ports = {
          sessions: createPostgresSessionPort(pool),
          tokens: createTokenPort(postgresStoreDb(pool)),
          memory: createPostgresMemoryPort(pool),
        };
        await writeData(ports);

        // This build's open (the whole history) on the legacy database.
        const store = await openPostgresStore({ url: database.url, maxConnections: 2 });
        try {
          await expectData(store);
        } finally {
          await store.close();
        }

        // A shared migration that changes a table holding rows: the rows stay, with the new column's default.
        expect(await migratePostgres(pool, postgresMigrations([...SHARED_MIGRATIONS, PINS]))).toEqual([PINS.version]);
        expect((await pool.query('SELECT session_key, pinned FROM sessions')).rows).toEqual([
          { session_key: KEY, pinned: false },
        ]);
        await expectData(ports);
      } finally {
        await pool.end();
        await database.drop();
      }
    });
  },
);
