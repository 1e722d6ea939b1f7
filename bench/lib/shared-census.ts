// What the shared servers did for a run: Redis commands (INFO commandstats) and PostgreSQL transactions and rows.
import { Redis } from 'ioredis';
import pg from 'pg';

/** Calls and server-side µs per Redis command name, cumulative since the server started. */
export type RedisCommandStats = Map<string, { calls: number; usec: number }>;

const COMMAND_LINE = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+),/;

/** INFO commandstats of the server at `url`, on a connection of its own (whose INFO call is counted too). */
export async function redisCommandStats(url: string): Promise<RedisCommandStats> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const text = await redis.info('commandstats');
    const stats: RedisCommandStats = new Map();
    for (const line of text.split('\r\n')) {
      const match = COMMAND_LINE.exec(line);
      if (match?.[1] !== undefined) stats.set(match[1], { calls: Number(match[2]), usec: Number(match[3]) });
    }
    return stats;
  } finally {
    redis.disconnect();
  }
}

/** Commands per request between two snapshots, busiest first, e.g. `evalsha 1.00 (3.1 us)`; the census's own INFO calls left out. */
export function formatRedisPerRequest(before: RedisCommandStats, after: RedisCommandStats, requests: number): string {
  const parts: { name: string; calls: number; usec: number }[] = [];
  for (const [name, { calls, usec }] of after) {
    if (name === 'info') continue;
    const earlier = before.get(name) ?? { calls: 0, usec: 0 };
    if (calls > earlier.calls) parts.push({ name, calls: calls - earlier.calls, usec: usec - earlier.usec });
  }
  parts.sort((a, b) => b.calls - a.calls);
  const totalUsec = parts.reduce((sum, part) => sum + part.usec, 0);
  const listed = parts.map(
    (part) => `${part.name} ${(part.calls / requests).toFixed(2)} (${(part.usec / requests).toFixed(1)} us)`,
  );
  return `${listed.join(', ')}; in Redis ${(totalUsec / requests).toFixed(1)} us per request`;
}

/**
 * Transactions committed and rows written in the database at `url` since it was created, per request; read after the
 * replicas closed their pools, as a backend hands its counts to the statistics when it exits.
 */
export async function formatPostgresPerRequest(url: string, requests: number): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const database = await client.query<{
      xact_commit: string;
      tup_inserted: string;
      tup_updated: string;
      tup_deleted: string;
    }>(
      'SELECT xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = current_database()',
    );
    const tables = await client.query<{ relname: string; written: string }>(
      `SELECT relname, n_tup_ins + n_tup_upd + n_tup_del AS written FROM pg_stat_user_tables
       WHERE n_tup_ins + n_tup_upd + n_tup_del > 0 ORDER BY 2 DESC, 1`,
    );
    const per = (value: string | undefined) => (Number(value ?? 0) / requests).toFixed(2);
    const row = database.rows[0];
    const written = tables.rows.map((table) => `${table.relname} ${per(table.written)}`).join(', ');
    return `commits ${per(row?.xact_commit)}, rows inserted ${per(row?.tup_inserted)} updated ${per(row?.tup_updated)} deleted ${per(row?.tup_deleted)} (${written})`;
  } finally {
    await client.end();
  }
}
