// The PostgreSQL ObsPort: channel activity, delivery traces, diagnostic events and health signals in one transaction per batch.
import type {
  ChannelActivityRow,
  ObsCounterTable,
  ObsPort,
  ObsWrite,
  StoredDelivery,
  StoredDiagnostic,
} from '../ports/obs.js';
import { insertRows, type CellValue } from './bulk-insert.js';
import { createPostgresUsageQueries } from './obs-usage.js';
import { transaction, type PgClient, type PgPool } from './pool.js';
import { buildWhere, Params } from './where.js';

const TABLES: Record<ObsCounterTable, string> = {
  delivery: 'delivery_traces',
  diagnostics: 'diagnostic_events',
  channels: 'channel_activity',
  token_usage: 'token_usage',
};

const CHANNEL_COLUMNS = `channel_id AS "channelId", channel_type AS "channelType", last_active_at AS "lastActiveAt", messages_sent AS "messagesSent",
  messages_received AS "messagesReceived"`;

const DELIVERY_COLUMNS = [
  ['ts', 'bigint'],
  ['channel_id', 'text'],
  ['channel_type', 'text'],
  ['session_key', 'text'],
  ['trace_id', 'text'],
  ['outcome', 'text'],
  ['latency_ms', 'bigint'],
  ['error_kind', 'text'],
] as const;
const DIAGNOSTIC_COLUMNS = [
  ['ts', 'bigint'],
  ['category', 'text'],
  ['kind', 'text'],
  ['count', 'bigint'],
  ['severity', 'text'],
  ['data', 'text'],
] as const;
const SIGNAL_COLUMNS = [
  ['ts', 'bigint'],
  ['kind', 'text'],
  ['agent_id', 'text'],
  ['root_run_id', 'text'],
  ['severity', 'text'],
  ['data', 'text'],
] as const;

interface ChannelSum {
  channelType: string;
  ts: number;
  sent: number;
  received: number;
}

/** Every message touches its channel twice, so touches are added up per channel first. */
function sumChannels(batch: readonly ObsWrite[]): Map<string, ChannelSum> {
  const channels = new Map<string, ChannelSum>();
  for (const write of batch) {
    if (write.type !== 'channel') continue;
    const { touch } = write;
    const sum = channels.get(touch.channelId) ?? { channelType: touch.channelType, ts: touch.ts, sent: 0, received: 0 };
    sum.channelType = touch.channelType;
    sum.ts = Math.max(sum.ts, touch.ts);
    if (touch.direction === 'sent') sum.sent += 1;
    else sum.received += 1;
    channels.set(touch.channelId, sum);
  }
  return channels;
}

/**
 * Channel counts are added in the upsert, so replicas sharing the table keep each other's counts; channels are
 * written in id order so two batches never wait on each other's rows in opposite orders.
 */
async function upsertChannels(client: PgClient, channels: Map<string, ChannelSum>): Promise<void> {
  if (channels.size === 0) return;
  const ids = [...channels.keys()].sort();
  const sums = ids.map((id) => channels.get(id) ?? { channelType: '', ts: 0, sent: 0, received: 0 });
  await client.query(
    `INSERT INTO channel_activity (channel_id, channel_type, last_active_at, messages_sent, messages_received)
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[])
     ON CONFLICT (channel_id) DO UPDATE SET channel_type = excluded.channel_type,
       last_active_at = GREATEST(channel_activity.last_active_at, excluded.last_active_at),
       messages_sent = channel_activity.messages_sent + excluded.messages_sent,
       messages_received = channel_activity.messages_received + excluded.messages_received`,
    [
      ids,
      sums.map((sum) => sum.channelType),
      sums.map((sum) => sum.ts),
      sums.map((sum) => sum.sent),
      sums.map((sum) => sum.received),
    ],
  );
}

async function appendBatch(client: PgClient, batch: readonly ObsWrite[]): Promise<void> {
  const deliveries: CellValue[][] = [];
  const diagnostics: CellValue[][] = [];
  const signals: CellValue[][] = [];
  for (const write of batch) {
    if (write.type === 'delivery') {
      const { row } = write;
      deliveries.push([
        row.ts,
        row.channelId,
        row.channelType,
        row.sessionKey,
        row.traceId,
        row.outcome,
        row.latencyMs,
        row.errorKind,
      ]);
    } else if (write.type === 'diagnostic') {
      const { row } = write;
      diagnostics.push([row.ts, row.category, row.kind, row.count, row.severity, row.data]);
    } else if (write.type === 'health_signal') {
      const { row } = write;
      signals.push([row.ts, row.kind, row.agentId, row.rootRunId, row.severity, row.data]);
    }
  }
  await insertRows(client, 'delivery_traces', DELIVERY_COLUMNS, deliveries);
  await insertRows(client, 'diagnostic_events', DIAGNOSTIC_COLUMNS, diagnostics);
  await insertRows(client, 'health_signals', SIGNAL_COLUMNS, signals);
  await upsertChannels(client, sumChannels(batch));
}

export function createPostgresObsPort(pool: PgPool): ObsPort {
  return {
    ...createPostgresUsageQueries(pool),
    async append(batch) {
      if (batch.length > 0) await transaction(pool, (client) => appendBatch(client, batch));
    },
    async deliveries({ sinceMs, channelId, limit }, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const where = buildWhere(params, [
        ['ts', '>=', sinceMs],
        ['channel_id', '=', channelId],
      ]);
      const result = await pool.query<StoredDelivery>(
        `SELECT id, ts, channel_id AS "channelId", channel_type AS "channelType", session_key AS "sessionKey", trace_id AS "traceId", outcome,
           latency_ms AS "latencyMs", error_kind AS "errorKind"
         FROM delivery_traces ${where} ORDER BY ts DESC, id DESC LIMIT ${params.add(limit)}`,
        params.values,
      );
      return result.rows;
    },
    async deliveryStats(signal) {
      signal?.throwIfAborted();
      const result = await pool.query<{ total: number; successes: number; avg_latency: number | null }>(
        "SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE outcome = 'success') AS successes, AVG(latency_ms) AS avg_latency FROM delivery_traces",
      );
      const row = result.rows[0];
      return { total: row?.total ?? 0, successes: row?.successes ?? 0, avgLatencyMs: row?.avg_latency ?? 0 };
    },
    async diagnostics({ category, sinceMs, limit }, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const where = buildWhere(params, [
        ['category', '=', category],
        ['ts', '>=', sinceMs],
      ]);
      const totals = await pool.query<{ category: string; kind: string; total: number }>(
        `SELECT category, kind, SUM(count) AS total FROM diagnostic_events ${where} GROUP BY category, kind ORDER BY category, kind`,
        params.values,
      );
      const rows = await pool.query<StoredDiagnostic>(
        `SELECT id, ts, category, kind, count, severity, data FROM diagnostic_events ${where} ORDER BY ts DESC, id DESC LIMIT ${params.add(limit)}`,
        params.values,
      );
      return { rows: rows.rows, totals: totals.rows };
    },
    async channels(signal) {
      signal?.throwIfAborted();
      return (await pool.query<ChannelActivityRow>(`SELECT ${CHANNEL_COLUMNS} FROM channel_activity`)).rows;
    },
    async channel(channelId, signal) {
      signal?.throwIfAborted();
      return (
        await pool.query<ChannelActivityRow>(`SELECT ${CHANNEL_COLUMNS} FROM channel_activity WHERE channel_id = $1`, [
          channelId,
        ])
      ).rows[0];
    },
    async reset(table) {
      return (await pool.query(`DELETE FROM ${TABLES[table]}`)).rowCount ?? 0;
    },
  };
}
