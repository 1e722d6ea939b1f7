// A throwaway PostgreSQL server (initdb + pg_ctl in a temp dir on a free port) for tests and benchmarks; no test runner needed.
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { migratePostgres } from '../../src/store/postgres/index.js';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** Debian's postgresql package keeps initdb and pg_ctl off PATH, under /usr/lib/postgresql/<major>/bin. */
const DEBIAN_ROOT = '/usr/lib/postgresql';

function candidateDirs(): string[] {
  const onPath = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  const debian = existsSync(DEBIAN_ROOT)
    ? readdirSync(DEBIAN_ROOT)
        .sort()
        .reverse()
        .map((major) => join(DEBIAN_ROOT, major, 'bin'))
    : [];
  return [...onPath, ...debian];
}

/** The directory holding initdb and pg_ctl, or undefined when this machine has no PostgreSQL server binaries. */
export const postgresBinDir: string | undefined = candidateDirs().find(
  (dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')),
);

/** The reason PostgreSQL suites are skipped here, for the skipped describe's name. */
export const POSTGRES_SKIP_REASON =
  'skipped: PostgreSQL server binaries (initdb, pg_ctl) not found; .ci/run installs the postgresql package';

/** Template database every fixture database is copied from, migrated once per server. */
const TEMPLATE = 'gateway_template';

export interface PostgresServer {
  /** A new database migrated to the current schema (or, with `empty`, without any table), and how to drop it. */
  freshDatabase(options?: { empty?: boolean }): Promise<{ url: string; drop(): Promise<void> }>;
  /** Connection URL of the server's maintenance database. */
  adminUrl: string;
  /** Process id of the postmaster, the parent of every backend (from the data dir's postmaster.pid). */
  serverPid(): Promise<number>;
  stop(): Promise<void>;
}

/** initdb refuses to run as root: as root, the server runs as the `postgres` system user on a directory it owns. */
async function runAs(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}

export interface StartPostgresOptions {
  /**
   * true: PostgreSQL's own durability defaults (fsync, synchronous_commit, full_page_writes on, 128MB shared
   * buffers), as a deployment runs; false (tests): all three off and 16MB, which is faster and loses nothing a test needs.
   */
  durable?: boolean;
}

export interface StartedPostgres {
  /** Connection URL of the server's maintenance database. */
  adminUrl: string;
  /** The server's data directory (its postmaster.pid names the postmaster). */
  dataDir: string;
  stop(): Promise<void>;
}

/** Starts a server on a free port and migrates its template database; `maxConnections` is the server's limit. */
export async function launchPostgres({
  durable = false,
  maxConnections = 60,
}: StartPostgresOptions & { maxConnections?: number } = {}): Promise<StartedPostgres> {
  if (postgresBinDir === undefined) throw new Error(POSTGRES_SKIP_REASON);
  const bin = postgresBinDir;
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-pg-'));
  const user = await runAs();
  if (user !== undefined) await chown(dir, user.uid, user.gid);
  const exec = (tool: string, args: string[]) =>
    user === undefined
      ? run(join(bin, tool), args)
      : run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]);
  const data = join(dir, 'data');
  const port = await freePort();
  await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const speed = durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB';
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=${maxConnections}${speed}`;
  await exec('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${TEMPLATE}`);
  } finally {
    await admin.end();
  }
  const templatePool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/${TEMPLATE}`, max: 1 });
  await migratePostgres(templatePool);
  await templatePool.end();
  return {
    adminUrl,
    dataDir: data,
    async stop() {
      await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A handle on a server started by `launchPostgres` (in this process or another: the test run's global setup):
 * fresh databases get names no other handle uses, and `stop` drops this handle's databases, leaving the server up.
 */
export function attachPostgresServer(adminUrl: string, dataDir: string): Promise<PostgresServer> {
  return attach(adminUrl, dataDir, { dropOnStop: true });
}

async function attach(
  adminUrl: string,
  dataDir: string,
  { dropOnStop }: { dropOnStop: boolean },
): Promise<PostgresServer> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const created = new Set<string>();
  const drop = async (name: string) => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    created.delete(name);
  };
  return {
    adminUrl,
    async freshDatabase({ empty = false } = {}) {
      // Digits only (as the old per-server counter gave); random, as other files create databases on the same server.
      const name = `gateway_${randomInt(2 ** 47)}`;
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${empty ? 'template0' : TEMPLATE}`);
      created.add(name);
      return { url: adminUrl.replace(/\/postgres$/, `/${name}`), drop: () => drop(name) };
    },
    async serverPid() {
      const [firstLine] = (await readFile(join(dataDir, 'postmaster.pid'), 'latin1')).split('\n', 1);
      const pid = Number(firstLine);
      if (!Number.isInteger(pid) || pid <= 0)
        throw new Error(`no postmaster pid in ${join(dataDir, 'postmaster.pid')}`);
      return pid;
    },
    async stop() {
      try {
        if (dropOnStop) for (const name of [...created]) await drop(name);
      } finally {
        await admin.end();
      }
    },
  };
}

/** A server of its own for the caller (tests that stop or kill it, benchmarks); `stop` shuts it down and removes it. */
export async function startPostgresServer(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const started = await launchPostgres(options);
  try {
    // Its databases go with the server, so none is dropped first (a test may have stopped or paused the server).
    const handle = await attach(started.adminUrl, started.dataDir, { dropOnStop: false });
    return {
      ...handle,
      async stop() {
        await handle.stop();
        await started.stop();
      },
    };
  } catch (error) {
    await started.stop();
    throw error;
  }
}

/**
 * Empties every table but schema_migrations (serial ids restart), so consecutive tests of one suite share a database
 * without seeing each other's rows; far cheaper than a database per test.
 */
export async function emptyDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY tablename",
    );
    if (tables.rows.length > 0)
      await client.query(`TRUNCATE ${tables.rows.map((row) => row.name).join(', ')} RESTART IDENTITY CASCADE`);
  } finally {
    await client.end();
  }
}
