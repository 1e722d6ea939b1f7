// `agent-gateway migrate` against PostgreSQL: applies the schema once, then nothing; refuses a newer schema naming both
// versions, and so does `start` (a replica older than its database never runs).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from '../../src/store/postgres/index.js';
import { runCli } from '../support/cli.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../support/postgres-server.js';

const SECRET = 'migrate-secret-0123456789abcdefghijklmn';
/** Every version this build has, in order (branches reserve numbers, so the list may have gaps until they merge). */
const allVersions = POSTGRES_MIGRATIONS.map((migration) => migration.version).sort((a, b) => a - b);

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(postgresBinDir === undefined)(
  `cli migrate on PostgreSQL${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    const server = usePostgresServer();
    let home: string;
    let url: string;
    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'agent-gateway-migrate-'));
      url = (await server().freshDatabase({ empty: true })).url;
      await writeFile(
        join(home, 'config.yaml'),
        `gateway:\n  port: 0\n  tokens:\n    - id: admin\n      secret: "\${MIGRATE_SECRET}"\n      scopes: ["*"]\nstorage:\n  kind: postgres\n  url: "\${PG_URL}"\n`,
      );
    });
    afterAll(async () => {
      await rm(home, { recursive: true, force: true });
    });

    it('creates the schema on an empty database, then reports nothing to apply', async () => {
      const first = await runCli(['migrate'], home, { MIGRATE_SECRET: SECRET, PG_URL: url });
      expect(first.stderr).toBe('');
      expect(first).toMatchObject({
        code: 0,
        stdout: `postgres: applied migration(s) ${allVersions.join(', ')}; schema at version ${POSTGRES_SCHEMA_VERSION}\n`,
      });
      const versions = await query<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version');
      expect(versions.map((row) => row.version)).toEqual(allVersions);
      const second = await runCli(['migrate'], home, { MIGRATE_SECRET: SECRET, PG_URL: url });
      expect(second).toMatchObject({
        code: 0,
        stdout: `postgres: schema already at version ${POSTGRES_SCHEMA_VERSION}; nothing to apply\n`,
      });
    });

    it('refuses a schema newer than this build, in migrate and in start, naming both versions', async () => {
      const newer = POSTGRES_SCHEMA_VERSION + 1;
      await query(url, `INSERT INTO schema_migrations (version, name) VALUES (${newer}, 'from_a_newer_gateway')`);
      const named = `The database schema is version ${newer}, newer than version ${POSTGRES_SCHEMA_VERSION} this gateway supports`;
      const migrate = await runCli(['migrate'], home, { MIGRATE_SECRET: SECRET, PG_URL: url });
      expect(migrate.code).toBe(1);
      expect(migrate.stderr).toContain(named);
      const start = await runCli(['start'], home, { MIGRATE_SECRET: SECRET, PG_URL: url });
      expect(start.code).toBe(1);
      expect(start.stderr).toContain(named);
      const versions = await query<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version');
      expect(versions.map((row) => row.version)).toEqual([...allVersions, newer]);
    });
  },
);
