// The PostgreSQL ObsPort: its batches of channel activity, delivery traces, diagnostic events and health signals written
// in one transaction each, its reads from the shared layer.
import { createObsReads } from '../kysely/index.js';
import type { ObsPort, ObsWrite } from '../ports/obs.js';
import { insertRows, type CellValue } from './bulk-insert.js';
import { transaction, type PgClient, type PgPool } from './pool.js';
import { postgresStoreDb } from './store-db.js';

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
    ...createObsReads(postgresStoreDb(pool)),
    async append(batch) {
      if (batch.length > 0) await transaction(pool, (client) => appendBatch(client, batch));
    },
  };
}
