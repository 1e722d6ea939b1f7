// The SQLite ObsPort: its batches of channel activity, delivery traces, diagnostic events and health signals written in
// one transaction each (on the writer thread when the store has one), its reads from the shared layer.
import { createObsReads, obsCells, type Cell } from '../shared/index.js';
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

/** A batch as statement rows. */
function toRows(batch: readonly ObsWrite[]): SqlRow[] {
  const { deliveries, diagnostics, signals, channels } = obsCells(batch);
  const tagged = (statement: number, rows: Cell[][]): SqlRow[] => rows.map((cells) => [statement, ...cells]);
  return [
    ...tagged(DELIVERY, deliveries),
    ...tagged(DIAGNOSTIC, diagnostics),
    ...tagged(SIGNAL, signals),
    ...tagged(CHANNEL, channels),
  ];
}

/** Reads run on `db`; writes go through `writers` when given (the store's writer thread), else on `db` itself. */
export function createSqliteObsPort(db: SqliteDatabase, writers?: WriterThread): ObsPort {
  // Counters alone (a boot's posture row, health signals) do not start the writer thread: the first evidence does.
  const here = createInThreadWriter(db, WRITES);
  const writer = writers?.writer(WRITES, here) ?? here;
  return { ...createObsReads(sqliteStoreDb(db)), append: (batch) => writer.write(toRows(batch)) };
}
