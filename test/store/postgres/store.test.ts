// openPostgresStore: migrates an empty database once however many replicas start together, and refuses a schema newer
// than this build (or, when it must not migrate, older), naming both versions and changing nothing.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStore, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from '../../../src/store/postgres/index.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../../support/postgres-server.js';

async function migrationsOf(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map(
      (row) => row.version,
    );
  } finally {
    await client.end();
  }
}

async function run(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

/** Every version this build declares, in order. */
const allVersions = POSTGRES_MIGRATIONS.map((migration) => migration.version).sort((a, b) => a - b);

describe.skipIf(postgresBinDir === undefined)(
  `openPostgresStore${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    const server = usePostgresServer();

    it('creates the whole schema on an empty database, once, when several replicas start at the same time', async () => {
      const database = await server().freshDatabase({ empty: true });
      try {
        const stores = await Promise.all(
          [1, 2, 3].map(() => openPostgresStore({ url: database.url, maxConnections: 2 })),
        );
        expect(await migrationsOf(database.url)).toEqual(allVersions);
        const [a, b] = stores;
        await a?.tokens.create({
          id: 'ops',
          secretHash: 'f'.repeat(64),
          scopes: ['admin'],
          createdAt: '2026-01-01T00:00:00.000Z',
        });
        expect((await b?.tokens.findById('ops'))?.scopes).toEqual(['admin']);
        for (const store of stores) await store.close();
        // A restart finds nothing to apply.
        const again = await openPostgresStore({ url: database.url });
        await again.close();
        expect(await migrationsOf(database.url)).toEqual(allVersions);
      } finally {
        await database.drop();
      }
    });

    it('refuses a schema newer than this build, naming both versions, and changes nothing', async () => {
      const database = await server().freshDatabase();
      try {
        const newer = POSTGRES_SCHEMA_VERSION + 1;
        await run(
          database.url,
          `INSERT INTO schema_migrations (version, name) VALUES (${newer}, 'from_a_newer_gateway')`,
        );
        for (const migrate of [true, false]) {
          await expect(openPostgresStore({ url: database.url, migrate })).rejects.toThrow(
            expect.objectContaining({
              kind: 'conflict',
              message: expect.stringContaining(`version ${newer}, newer than version ${POSTGRES_SCHEMA_VERSION}`),
            }),
          );
        }
        expect(await migrationsOf(database.url)).toEqual([...allVersions, newer]);
      } finally {
        await database.drop();
      }
    });

    it('without migrating, refuses an older schema and tells the operator to run agent-gateway migrate', async () => {
      const database = await server().freshDatabase({ empty: true });
      try {
        await expect(openPostgresStore({ url: database.url, migrate: false })).rejects.toThrow(
          expect.objectContaining({
            message: expect.stringMatching(
              new RegExp(`version 0, older than version ${POSTGRES_SCHEMA_VERSION}.*agent-gateway migrate`),
            ),
          }),
        );
        const migrated = await openPostgresStore({ url: database.url });
        await migrated.close();
        const strict = await openPostgresStore({ url: database.url, migrate: false });
        expect(await strict.sessions.list({})).toEqual([]);
        await strict.close();
      } finally {
        await database.drop();
      }
    });
  },
);
