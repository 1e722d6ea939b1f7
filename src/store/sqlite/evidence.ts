// The SQLite EvidencePort's writes: one IMMEDIATE transaction per batch (on the writer thread when the store has one), so
// trajectory seq allocation holds the write lock; its reads come from the shared layer.
import { createSessionReads, createWindowReads, sessionStartCells, usageCells } from '../shared/index.js';
import type { EvidencePort, EvidenceWrite, SessionIndexEnd } from '../ports/evidence.js';
import type { SqliteDatabase } from './database.js';
import { createInThreadWriter, type SqlRow, type WriterThread } from './sql-writer.js';
import { sqliteStoreDb } from './store-db.js';

/** The statements of a batch, by index; seq is allocated inside the insert, under the batch's write lock. */
const WRITES = [
  `INSERT INTO trajectory (session_key, trace_id, seq, ts, kind, data)
   SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM trajectory WHERE session_key = ?`,
  `INSERT OR REPLACE INTO session_index (trace_id, session_key, agent_id, channel, message_id, root_run_id, started_at, day, synthetic, end_reason, degraded, ended_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  'UPDATE session_index SET end_reason = ?, degraded = ?, ended_at = ? WHERE trace_id = ?',
  `INSERT INTO token_usage (ts, agent_id, session_key, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
] as const;
const [TRAJECTORY, INDEX_START, INDEX_END, USAGE] = [0, 1, 2, 3] as const;

/** A batch as statement rows: a turn that started and ended within it (most of them) becomes one finished row. */
function toRows(batch: readonly EvidenceWrite[]): SqlRow[] {
  const endsInBatch = new Map<string, SessionIndexEnd>();
  for (const write of batch) if (write.type === 'session_end') endsInBatch.set(write.end.traceId, write.end);
  const startedInBatch = new Set<string>();
  const rows: SqlRow[] = [];
  for (const write of batch) {
    if (write.type === 'trajectory') {
      const { record } = write;
      rows.push([
        TRAJECTORY,
        record.sessionKey,
        record.traceId,
        record.ts,
        record.kind,
        JSON.stringify(record.data),
        record.sessionKey,
      ]);
    } else if (write.type === 'session_start') {
      const { entry } = write;
      const end = endsInBatch.get(entry.traceId);
      if (end !== undefined) startedInBatch.add(entry.traceId);
      rows.push([
        INDEX_START,
        ...sessionStartCells(entry),
        entry.isSynthetic ? 1 : 0,
        end?.endReason ?? null,
        end?.degraded === true ? 1 : 0,
        end?.endedAt ?? null,
      ]);
    } else if (write.type === 'session_end') {
      const { end } = write;
      if (!startedInBatch.has(end.traceId))
        rows.push([INDEX_END, end.endReason, end.degraded ? 1 : 0, end.endedAt, end.traceId]);
    } else {
      rows.push([USAGE, ...usageCells(write.record)]);
    }
  }
  return rows;
}

/** Reads run on `db`; writes go through `writers` when given (the store's writer thread), else on `db` itself. */
export function createSqliteEvidencePort(db: SqliteDatabase, writers?: WriterThread): EvidencePort {
  const writer = writers?.writer(WRITES) ?? createInThreadWriter(db, WRITES);
  return {
    ...createSessionReads(sqliteStoreDb(db)),
    ...createWindowReads(sqliteStoreDb(db)),
    append: (batch) => writer.write(toRows(batch)),
  };
}
