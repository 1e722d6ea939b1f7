// The ObsPort's reads and resets on both dialects: deliveries, diagnostics, channels and token usage. Its appends stay
// with each backend (SQLite writes them on its writer thread, PostgreSQL as one INSERT per table and batch).
import { sql, type RawBuilder } from 'kysely';
import type { CacheGroup, ObsCounterTable, ObsPort, SpendGroup, SpendKey } from '../ports/obs.js';
import { first, type StoreDb } from './store-db.js';
import type { Tables } from './tables.js';

const TABLES: Record<ObsCounterTable, keyof Tables> = {
  delivery: 'delivery_traces',
  diagnostics: 'diagnostic_events',
  channels: 'channel_activity',
  token_usage: 'token_usage',
};

const HOUR_MS = 3_600_000;

/** The spend key of a usage row (its session joined as `sessions`). */
const SPEND_KEYS: Record<SpendKey, RawBuilder<string | null>> = {
  agent: sql`token_usage.agent_id`,
  model: sql`token_usage.provider || '/' || token_usage.model`,
  token: sql`sessions.owner_id`,
};

/** Costliest first; equal costs by key, the unowned (null) key last. */
function byCost(left: SpendGroup, right: SpendGroup): number {
  if (left.costUsd !== right.costUsd) return right.costUsd - left.costUsd;
  if (left.key === right.key) return 0;
  if (left.key === null) return 1;
  if (right.key === null) return -1;
  return left.key < right.key ? -1 : 1;
}

/** An integer written into the statement (bucket arithmetic), refused unless it is one. */
function integerLiteral(value: number): RawBuilder<number> {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${value}`);
  return sql.lit(value);
}

export function createObsReads(store: StoreDb): Omit<ObsPort, 'append'> {
  const { db } = store;
  const channels = () =>
    db
      .selectFrom('channel_activity')
      .select([
        'channel_id as channelId',
        'channel_type as channelType',
        'last_active_at as lastActiveAt',
        'messages_sent as messagesSent',
        'messages_received as messagesReceived',
      ]);
  const diagnostics = ({ category, sinceMs }: { category?: string; sinceMs?: number }) => {
    let query = db.selectFrom('diagnostic_events');
    if (category !== undefined) query = query.where('category', '=', category);
    return sinceMs === undefined ? query : query.where('ts', '>=', sinceMs);
  };
  /** How many rows meet the condition (COUNT … FILTER is PostgreSQL's alone). */
  const count = (condition: RawBuilder<unknown>) => sql<number>`SUM(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;
  return {
    async deliveries({ sinceMs, channelId, limit }, signal) {
      signal?.throwIfAborted();
      let query = db
        .selectFrom('delivery_traces')
        .select([
          'id',
          'ts',
          'channel_id as channelId',
          'channel_type as channelType',
          'session_key as sessionKey',
          'trace_id as traceId',
          'outcome',
          'latency_ms as latencyMs',
          'error_kind as errorKind',
        ]);
      if (sinceMs !== undefined) query = query.where('ts', '>=', sinceMs);
      if (channelId !== undefined) query = query.where('channel_id', '=', channelId);
      return store.rows(query.orderBy('ts', 'desc').orderBy('id', 'desc').limit(limit));
    },
    async deliveryStats(signal) {
      signal?.throwIfAborted();
      const row = await first(
        store,
        db
          .selectFrom('delivery_traces')
          .select((eb) => [
            eb.fn.countAll<number>().as('total'),
            count(sql`outcome = 'success'`).as('successes'),
            eb.fn.avg<number>('latency_ms').as('avgLatency'),
          ]),
      );
      return { total: row?.total ?? 0, successes: row?.successes ?? 0, avgLatencyMs: row?.avgLatency ?? 0 };
    },
    async diagnostics(filter, signal) {
      signal?.throwIfAborted();
      const totals = diagnostics(filter)
        .select((eb) => ['category', 'kind', eb.fn.sum<number>('count').as('total')])
        .groupBy(['category', 'kind'])
        .orderBy('category')
        .orderBy('kind');
      const rows = diagnostics(filter)
        .select(['id', 'ts', 'category', 'kind', 'count', 'severity', 'data'])
        .orderBy('ts', 'desc')
        .orderBy('id', 'desc')
        .limit(filter.limit);
      return { rows: await store.rows(rows), totals: await store.rows(totals) };
    },
    async channels(signal) {
      signal?.throwIfAborted();
      return store.rows(channels());
    },
    async channel(channelId, signal) {
      signal?.throwIfAborted();
      return first(store, channels().where('channel_id', '=', channelId));
    },
    async usageGroups({ sinceMs, agentId, sessionKey }, signal) {
      signal?.throwIfAborted();
      let query = db
        .selectFrom('token_usage')
        .select((eb) => [
          'provider',
          'model',
          eb.fn.countAll<number>().as('calls'),
          eb.fn.sum<number>('input_tokens').as('inputTokens'),
          eb.fn.sum<number>('output_tokens').as('outputTokens'),
          eb.fn.sum<number>('cache_read_tokens').as('cacheReadTokens'),
          eb.fn.sum<number>('cost_usd').as('costUsd'),
        ])
        .where('ts', '>=', sinceMs);
      if (agentId !== undefined) query = query.where('agent_id', '=', agentId);
      if (sessionKey !== undefined) query = query.where('session_key', '=', sessionKey);
      return store.rows(query.groupBy(['provider', 'model']).orderBy('provider').orderBy('model'));
    },
    async usageByHour({ afterMs, untilMs }, signal) {
      signal?.throwIfAborted();
      // Whole hours since the epoch, modulo a day: the UTC hour of day.
      const hour = sql<number>`CAST((ts / ${sql.lit(HOUR_MS)}) % 24 AS INTEGER)`;
      const query = db
        .selectFrom('token_usage')
        .select((eb) => [hour.as('hour'), eb.fn.sum<number>(sql`input_tokens + output_tokens`).as('tokens')])
        .where('ts', '>', afterMs)
        .where('ts', '<=', untilMs)
        .groupBy(hour)
        .orderBy(hour);
      return store.rows(query);
    },
    async cacheGroups(signal): Promise<CacheGroup[]> {
      signal?.throwIfAborted();
      const query = db
        .selectFrom('token_usage')
        .select((eb) => [
          'provider',
          'model',
          count(sql`cache_read_tokens > 0`).as('hits'),
          count(sql`cache_read_tokens = 0`).as('misses'),
          eb.fn.sum<number>('cache_read_tokens').as('cachedTokens'),
        ])
        .groupBy(['provider', 'model'])
        .orderBy('provider')
        .orderBy('model');
      return store.rows(query);
    },
    async spendGroups({ sinceMs, untilMs, by }, signal) {
      signal?.throwIfAborted();
      const key = SPEND_KEYS[by];
      const query = db
        .selectFrom('token_usage')
        .leftJoin('sessions', 'sessions.session_key', 'token_usage.session_key')
        .select((eb) => [
          key.as('key'),
          eb.fn.countAll<number>().as('calls'),
          eb.fn.sum<number>('token_usage.input_tokens').as('inputTokens'),
          eb.fn.sum<number>('token_usage.output_tokens').as('outputTokens'),
          eb.fn.sum<number>('token_usage.cost_usd').as('costUsd'),
        ])
        .where('token_usage.ts', '>=', sinceMs)
        .where('token_usage.ts', '<=', untilMs)
        .groupBy(key);
      return (await store.rows(query)).sort(byCost);
    },
    async spendBuckets({ sinceMs, untilMs, bucketMs }, signal) {
      signal?.throwIfAborted();
      const bucket = sql<number>`CAST((ts - ${integerLiteral(sinceMs)}) / ${integerLiteral(bucketMs)} AS INTEGER)`;
      const query = db
        .selectFrom('token_usage')
        .select((eb) => [
          bucket.as('bucket'),
          eb.fn.countAll<number>().as('calls'),
          eb.fn.sum<number>(sql`input_tokens + output_tokens`).as('tokens'),
          eb.fn.sum<number>('cost_usd').as('costUsd'),
        ])
        .where('ts', '>=', sinceMs)
        .where('ts', '<=', untilMs)
        .groupBy(bucket)
        .orderBy(bucket);
      return store.rows(query);
    },
    reset: (table) => store.changes(db.deleteFrom(TABLES[table])),
  };
}
