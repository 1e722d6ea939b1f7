// PostgreSQL implementation of the ConfigRevisionPort: revisions appended under an advisory lock with an optimistic
// base check, secrets in their own table, and LISTEN/NOTIFY to tell every replica of a new revision at once.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ConfigRevision, ConfigRevisionPort, ConfigRevisionSummary } from '../../config/index.js';
import { assertSchemaSupported, migratePostgres } from './migrate.js';
import { createPool, transaction, type PgPool } from './pool.js';

/** The channel every replica listens on; the payload is the new revision's number. */
const CHANNEL = 'config_revisions';
/** Advisory lock key held while a revision is appended, so the base check and the insert are one step. */
const APPEND_LOCK_KEY = 7_461_002_017;
/** How long the listening connection waits before reconnecting after it failed, in ms (the poll covers the gap). */
const LISTEN_RETRY_MS = 1_000;
/** Connections of the port's own pool: reads and the occasional append. */
const POOL_CONNECTIONS = 2;

interface RevisionRow {
  revision: number;
  sha: string;
  document?: unknown;
  message: string;
  author: string;
  created_at: Date;
}

const documentSchema = z.record(z.string(), z.unknown());

function summaryOf(row: RevisionRow): ConfigRevisionSummary {
  return {
    revision: row.revision,
    sha: row.sha,
    message: row.message,
    author: row.author,
    createdAt: row.created_at.toISOString(),
  };
}

/** Rows are written only by this port; a document that is not an object fails the read rather than passing as config. */
function revisionOf(row: RevisionRow): ConfigRevision {
  return { ...summaryOf(row), document: documentSchema.parse(row.document) };
}

function shaOf(revision: number, parentSha: string, documentJson: string, message: string, author: string): string {
  return createHash('sha256')
    .update([String(revision), parentSha, documentJson, message, author].join('\0'))
    .digest('hex')
    .slice(0, 40);
}

class StaleAppend extends Error {}

const FULL = 'revision, sha, document, message, author, created_at';
const SUMMARY = 'revision, sha, message, author, created_at';

export interface PostgresConfigRevisionOptions {
  /** The listening connection is opened from this URL, outside the pool (LISTEN needs one connection for itself). */
  url: string;
  log?: Logger;
}

export function createPostgresConfigRevisionPort(
  pool: PgPool,
  { url, log }: PostgresConfigRevisionOptions,
): ConfigRevisionPort {
  const stops = new Set<() => Promise<void>>();
  const select = async (sql: string, values: unknown[] = []) => (await pool.query<RevisionRow>(sql, values)).rows;
  const revisions = async (sql: string, values: unknown[] = []) => (await select(sql, values)).map(revisionOf);

  async function listen(onRevision: (revision: number) => void): Promise<() => Promise<void>> {
    let isStopped = false;
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    const connect = async (): Promise<void> => {
      const next = new pg.Client({ connectionString: url });
      const reconnect = (error?: Error) => {
        if (client !== next) return;
        client = undefined;
        next.end().catch(() => undefined);
        if (isStopped) return;
        log?.warn(
          { err: error },
          'listening for config revisions failed; reconnecting (changes still apply through the poll)',
        );
        retry = setTimeout(() => void connect().catch(() => reconnect()), LISTEN_RETRY_MS);
        retry.unref();
      };
      client = next;
      next.on('error', reconnect);
      next.on('end', () => reconnect());
      next.on('notification', (message) => {
        const revision = Number(message.payload);
        if (message.channel === CHANNEL && Number.isInteger(revision)) onRevision(revision);
      });
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
    };
    await connect();
    const stop = async () => {
      isStopped = true;
      clearTimeout(retry);
      stops.delete(stop);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    };
    stops.add(stop);
    return stop;
  }

  return {
    async latestNumber() {
      const result = await pool.query<{ revision: number | null }>(
        'SELECT max(revision) AS revision FROM config_revisions',
      );
      return result.rows[0]?.revision ?? 0;
    },
    latest: async () => (await revisions(`SELECT ${FULL} FROM config_revisions ORDER BY revision DESC LIMIT 1`))[0],
    get: async (revision) =>
      (await revisions(`SELECT ${FULL} FROM config_revisions WHERE revision = $1`, [revision]))[0],
    findBySha: (prefix) =>
      revisions(`SELECT ${FULL} FROM config_revisions WHERE starts_with(sha, $1) ORDER BY revision LIMIT 2`, [prefix]),
    list: async (limit) =>
      (await select(`SELECT ${SUMMARY} FROM config_revisions ORDER BY revision DESC LIMIT $1`, [limit])).map(summaryOf),
    async stats() {
      const result = await pool.query<{ revisions: number; size: number }>(
        "SELECT count(*) AS revisions, pg_total_relation_size('config_revisions') AS size FROM config_revisions",
      );
      return { revisions: result.rows[0]?.revisions ?? 0, sizeBytes: result.rows[0]?.size ?? 0 };
    },
    async secrets() {
      const rows = (await pool.query<{ name: string; value: string }>('SELECT name, value FROM config_secrets')).rows;
      return new Map(rows.map((row) => [row.name, row.value]));
    },
    async append({ base, document, message, author, newSecrets }) {
      try {
        const revision = await transaction(pool, async (client) => {
          await client.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK_KEY]);
          const head = (
            await client.query<{ revision: number; sha: string }>(
              'SELECT revision, sha FROM config_revisions ORDER BY revision DESC LIMIT 1',
            )
          ).rows[0];
          if ((head?.revision ?? 0) !== base) throw new StaleAppend();
          if (newSecrets.size > 0) {
            const names = [...newSecrets.keys()];
            await client.query(
              'INSERT INTO config_secrets (name, value) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (name) DO NOTHING',
              [names, [...newSecrets.values()]],
            );
            const stored = await client.query<{ name: string; value: string }>(
              'SELECT name, value FROM config_secrets WHERE name = ANY($1::text[])',
              [names],
            );
            // Another replica took one of these names for another value first: this change must pick its names again.
            if (stored.rows.some((row) => newSecrets.get(row.name) !== row.value)) throw new StaleAppend();
          }
          const next = base + 1;
          const json = JSON.stringify(document);
          const sha = shaOf(next, head?.sha ?? '', json, message, author);
          const inserted = await client.query<RevisionRow>(
            `INSERT INTO config_revisions (revision, sha, document, message, author) VALUES ($1, $2, $3, $4, $5) RETURNING ${FULL}`,
            [next, sha, json, message, author],
          );
          // Delivered to every listener when the transaction commits, never before.
          await client.query('SELECT pg_notify($1, $2)', [CHANNEL, String(next)]);
          const row = inserted.rows[0];
          if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
          return revisionOf(row);
        });
        return { ok: true, revision };
      } catch (error) {
        if (error instanceof StaleAppend) return { ok: false, reason: 'stale' };
        throw error;
      }
    },
    listen,
    async close() {
      for (const stop of [...stops]) await stop();
      if (!pool.ending) await pool.end();
    },
  };
}

export interface OpenPostgresConfigRevisionsOptions extends PostgresConfigRevisionOptions {
  /** As the store's `migrate`: apply missing migrations, or only check that the schema is this build's. */
  migrate: boolean;
}

/** The port on a small pool of its own, opened before the rest of the store; rejects (pool closed) like openPostgresStore. */
export async function openPostgresConfigRevisions(
  options: OpenPostgresConfigRevisionsOptions,
): Promise<ConfigRevisionPort> {
  const { url, log, migrate } = options;
  const pool = createPool({ url, maxConnections: POOL_CONNECTIONS, ...(log === undefined ? {} : { log }) });
  try {
    if (migrate) await migratePostgres(pool);
    else await assertSchemaSupported(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return createPostgresConfigRevisionPort(pool, options);
}
