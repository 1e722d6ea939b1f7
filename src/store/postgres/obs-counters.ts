// The PostgreSQL ObsPort: its batches of channel activity, delivery traces, diagnostic events and health signals written
// in one transaction each, its reads from the shared layer.
import { createObsReads, obsCells, type Cell } from '../shared/index.js';
import type { ObsPort, ObsWrite } from '../ports/obs.js';
import { insertRows } from './bulk-insert.js';
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

/** Channel counts are added in the upsert, so replicas sharing the table keep each other's counts. */
async function upsertChannels(client: PgClient, channels: readonly Cell[][]): Promise<void> {
  if (channels.length === 0) return;
  await client.query(
    `INSERT INTO channel_activity (channel_id, channel_type, last_active_at, messages_sent, messages_received)
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[])
     ON CONFLICT (channel_id) DO UPDATE SET channel_type = excluded.channel_type,
       last_active_at = GREATEST(channel_activity.last_active_at, excluded.last_active_at),
       messages_sent = channel_activity.messages_sent + excluded.messages_sent,
       messages_received = channel_activity.messages_received + excluded.messages_received`,
    [0, 1, 2, 3, 4].map((column) => channels.map((cells) => cells[column] ?? null)),
  );
}

async function appendBatch(client: PgClient, batch: readonly ObsWrite[]): Promise<void> {
  const { deliveries, diagnostics, signals, channels } = obsCells(batch);
  await insertRows(client, 'delivery_traces', DELIVERY_COLUMNS, deliveries);
  await insertRows(client, 'diagnostic_events', DIAGNOSTIC_COLUMNS, diagnostics);
  await insertRows(client, 'health_signals', SIGNAL_COLUMNS, signals);
  await upsertChannels(client, channels);
}

export function createPostgresObsPort(pool: PgPool): ObsPort {
  return {
    ...createObsReads(postgresStoreDb(pool)),
    async append(batch) {
      if (batch.length > 0) await transaction(pool, (client) => appendBatch(client, batch));
    },
  };
}
