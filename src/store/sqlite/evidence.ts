// The SQLite EvidencePort's writes: one IMMEDIATE transaction per batch (on the writer thread when the store has one),
// a turn as one row whatever its steps; its reads come from the shared layer.
import { createEvidenceReads, encodeSteps, sessionStartCells, usageCells } from '../shared/index.js';
import type { EvidencePort, EvidenceWrite, SessionIndexEnd } from '../ports/evidence.js';
import type { SqliteDatabase } from './database.js';
import { createInThreadWriter, type SqlRow, type WriterThread } from './sql-writer.js';
import { sqliteStoreDb } from './store-db.js';

const INDEX = 'trace_id, session_key, agent_id, channel, message_id, root_run_id, started_at, day, synthetic';
const SET_INDEX = `session_key = excluded.session_key, agent_id = excluded.agent_id, channel = excluded.channel,
  message_id = excluded.message_id, root_run_id = excluded.root_run_id, started_at = excluded.started_at, day = excluded.day,
  synthetic = excluded.synthetic, end_reason = excluded.end_reason, degraded = excluded.degraded, ended_at = excluded.ended_at`;

/** The statements of a batch, by index. A turn written again (open at one flush, ended at the next) replaces its row. */
const WRITES = [
  `INSERT INTO turns (${INDEX}, end_reason, degraded, ended_at, steps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT (trace_id) DO UPDATE SET ${SET_INDEX}, steps = excluded.steps`,
  // An index entry alone (fixtures, older callers) keeps the steps its turn already has.
  `INSERT INTO turns (${INDEX}, end_reason, degraded, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT (trace_id) DO UPDATE SET ${SET_INDEX}`,
  'UPDATE turns SET end_reason = ?, degraded = ?, ended_at = ? WHERE trace_id = ?',
  'INSERT INTO loose_records (session_key, trace_id, ts, kind, data) VALUES (?, ?, ?, ?, ?)',
  `INSERT INTO token_usage (ts, agent_id, session_key, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
] as const;
const [TURN, INDEX_START, INDEX_END, LOOSE, USAGE] = [0, 1, 2, 3, 4] as const;

/** Index of the last `turn` write of each trace: earlier ones in the batch are replaced by it, so are not written. */
function lastTurnWrites(batch: readonly EvidenceWrite[]): Map<string, number> {
  const last = new Map<string, number>();
  batch.forEach((write, index) => {
    if (write.type === 'turn') last.set(write.turn.traceId, index);
  });
  return last;
}

/** A batch as statement rows: an index entry that started and ended within it becomes one finished row. */
function toRows(batch: readonly EvidenceWrite[]): SqlRow[] {
  const endsInBatch = new Map<string, SessionIndexEnd>();
  for (const write of batch) if (write.type === 'session_end') endsInBatch.set(write.end.traceId, write.end);
  const lastTurn = lastTurnWrites(batch);
  const startedInBatch = new Set<string>();
  const rows: SqlRow[] = [];
  batch.forEach((write, index) => {
    if (write.type === 'turn') {
      const { turn } = write;
      if (lastTurn.get(turn.traceId) !== index) return;
      const { end } = turn;
      rows.push([
        TURN,
        ...sessionStartCells(turn),
        turn.isSynthetic ? 1 : 0,
        end?.endReason ?? null,
        end?.degraded === true ? 1 : 0,
        end?.endedAt ?? null,
        encodeSteps(turn.steps),
      ]);
    } else if (write.type === 'trajectory') {
      const { record } = write;
      rows.push([LOOSE, record.sessionKey, record.traceId, record.ts, record.kind, JSON.stringify(record.data)]);
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
  });
  return rows;
}

/** Reads run on `db`; writes go through `writers` when given (the store's writer thread), else on `db` itself. */
export function createSqliteEvidencePort(db: SqliteDatabase, writers?: WriterThread): EvidencePort {
  const writer = writers?.writer(WRITES) ?? createInThreadWriter(db, WRITES);
  const store = sqliteStoreDb(db);
  return {
    ...createEvidenceReads(store),
    append: (batch) => writer.write(toRows(batch)),
  };
}
