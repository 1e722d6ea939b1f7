// The SQLite ObsPort: its batches of channel activity, delivery traces, diagnostic events and health signals written in
// one transaction each (on the writer thread when the store has one), its reads from the shared layer.
import { createObsReads } from '../kysely/index.js';
import type { ObsPort, ObsWrite } from '../ports/obs.js';
import type { SqliteDatabase } from './database.js';
import { createInThreadWriter, type SqlRow, type WriterThread } from './sql-writer.js';
import { sqliteStoreDb } from './store-db.js';

/** The statements of a batch, by index. Channel counts are additive, so writers sharing the table keep each other's counts. */
const WRITES = [
  `INSERT INTO delivery_traces (ts, channel_id, channel_type, session_key, trace_id, outcome, latency_ms, error_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  'INSERT INTO diagnostic_events (ts, category, kind, count, severity, data) VALUES (?, ?, ?, ?, ?, ?)',
  'INSERT INTO health_signals (ts, kind, agent_id, root_run_id, severity, data) VALUES (?, ?, ?, ?, ?, ?)',
  `INSERT INTO channel_activity (channel_id, channel_type, last_active_at, messages_sent, messages_received) VALUES (?, ?, ?, ?, ?)
   ON CONFLICT (channel_id) DO UPDATE SET channel_type = excluded.channel_type, last_active_at = MAX(last_active_at, excluded.last_active_at),
     messages_sent = messages_sent + excluded.messages_sent, messages_received = messages_received + excluded.messages_received`,
] as const;
const [DELIVERY, DIAGNOSTIC, SIGNAL, CHANNEL] = [0, 1, 2, 3] as const;

/** A batch as statement rows; every message touches its channel twice, so touches are added up per channel first. */
function toRows(batch: readonly ObsWrite[]): SqlRow[] {
  const rows: SqlRow[] = [];
  const channels = new Map<string, { channelType: string; ts: number; sent: number; received: number }>();
  for (const write of batch) {
    if (write.type === 'channel') {
      const { touch } = write;
      const sum = channels.get(touch.channelId) ?? {
        channelType: touch.channelType,
        ts: touch.ts,
        sent: 0,
        received: 0,
      };
      sum.channelType = touch.channelType;
      sum.ts = Math.max(sum.ts, touch.ts);
      if (touch.direction === 'sent') sum.sent += 1;
      else sum.received += 1;
      channels.set(touch.channelId, sum);
    } else if (write.type === 'delivery') {
      const { row } = write;
      rows.push([
        DELIVERY,
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
      rows.push([DIAGNOSTIC, row.ts, row.category, row.kind, row.count, row.severity, row.data]);
    } else {
      const { row } = write;
      rows.push([SIGNAL, row.ts, row.kind, row.agentId, row.rootRunId, row.severity, row.data]);
    }
  }
  for (const [channelId, sum] of channels)
    rows.push([CHANNEL, channelId, sum.channelType, sum.ts, sum.sent, sum.received]);
  return rows;
}

/** Reads run on `db`; writes go through `writers` when given (the store's writer thread), else on `db` itself. */
export function createSqliteObsPort(db: SqliteDatabase, writers?: WriterThread): ObsPort {
  const writer = writers?.writer(WRITES) ?? createInThreadWriter(db, WRITES);
  return { ...createObsReads(sqliteStoreDb(db)), append: (batch) => writer.write(toRows(batch)) };
}
