// The PostgreSQL connection pool: BIGINT and NUMERIC read back as JS numbers, and one transaction helper for the ports.
import pg from 'pg';
import type { Logger } from 'pino';

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient;
/** A pool or one checked-out client: what a single statement runs on. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Epoch milliseconds, counts and sums are BIGINT or NUMERIC in SQL; every value the ports keep fits a double, so they
 * are read as numbers rather than pg's default strings.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export interface PostgresPoolOptions {
  url: string;
  /** Told when an idle connection fails (the server restarted or dropped it); the pool reconnects on the next checkout. */
  log?: Logger;
  /** Connections the pool may hold open at once. */
  maxConnections?: number;
  /** How long a checkout waits for a free connection before failing, in milliseconds. */
  connectionTimeoutMs?: number;
}

export const DEFAULT_MAX_CONNECTIONS = 10;
export const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;

export function createPool({
  url,
  log,
  maxConnections = DEFAULT_MAX_CONNECTIONS,
  connectionTimeoutMs = DEFAULT_CONNECTION_TIMEOUT_MS,
}: PostgresPoolOptions): PgPool {
  const pool = new pg.Pool({
    connectionString: url,
    max: maxConnections,
    connectionTimeoutMillis: connectionTimeoutMs,
    types,
  });
  // An idle client losing its connection (server restart) must not crash the process; the next checkout reconnects.
  pool.on('error', (error) =>
    log?.warn({ err: error }, 'an idle PostgreSQL connection failed; the pool reconnects on next use'),
  );
  return pool;
}

/** Runs `work` in one transaction on one client: committed when it resolves, rolled back when it throws. */
export async function transaction<T>(pool: PgPool, work: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A server ending the connection mid-transaction (a restart, pg_terminate_backend) fails the statement and also emits
  // 'error' on the checked-out client, which the pool only listens to while the client is idle: unheard, it would crash
  // the process. The broken client is handed back with its error, so the pool drops it instead of reusing it.
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/** The SQLSTATE of a failed statement (23505 unique violation …), or undefined for other errors. */
export function sqlState(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

export const UNIQUE_VIOLATION = '23505';
