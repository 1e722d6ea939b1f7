// The PostgreSQL EvidencePort's writes: one transaction per batch, trajectory seqs from a per-session counter row; its
// reads come from the shared layer.
import { createSessionReads, createWindowReads, sessionStartCells, usageCells, type Cell } from '../shared/index.js';
import type { EvidencePort, EvidenceWrite, TrajectoryRecord } from '../ports/evidence.js';
import { insertRows, type CellValue } from './bulk-insert.js';
import { transaction, type PgClient, type PgPool } from './pool.js';
import { postgresStoreDb } from './store-db.js';

const TRAJECTORY_COLUMNS = [
  ['session_key', 'text'],
  ['trace_id', 'text'],
  ['seq', 'bigint'],
  ['ts', 'bigint'],
  ['kind', 'text'],
  ['data', 'text'],
] as const;
const USAGE_COLUMNS = [
  ['ts', 'bigint'],
  ['agent_id', 'text'],
  ['session_key', 'text'],
  ['provider', 'text'],
  ['model', 'text'],
  ['input_tokens', 'bigint'],
  ['output_tokens', 'bigint'],
  ['cache_read_tokens', 'bigint'],
  ['cache_write_tokens', 'bigint'],
  ['cost_usd', 'double precision'],
] as const;

/**
 * Takes the next seqs of every session in the batch with one upsert of the counters: the counter rows stay locked
 * until the batch commits, so a concurrent writer (this replica or another) waits and then continues after them.
 * Sessions are locked in key order, so two batches never wait on each other in opposite orders.
 */
async function appendTrajectory(client: PgClient, records: readonly TrajectoryRecord[]): Promise<void> {
  if (records.length === 0) return;
  const counts = new Map<string, number>();
  for (const record of records) counts.set(record.sessionKey, (counts.get(record.sessionKey) ?? 0) + 1);
  const keys = [...counts.keys()].sort();
  const taken = await client.query<{ session_key: string; last_seq: number }>(
    `INSERT INTO trajectory_seqs (session_key, last_seq) SELECT * FROM unnest($1::text[], $2::bigint[])
     ON CONFLICT (session_key) DO UPDATE SET last_seq = trajectory_seqs.last_seq + excluded.last_seq
     RETURNING session_key, last_seq`,
    [keys, keys.map((key) => counts.get(key) ?? 0)],
  );
  const next = new Map<string, number>();
  for (const row of taken.rows) next.set(row.session_key, row.last_seq - (counts.get(row.session_key) ?? 0) + 1);
  const rows: CellValue[][] = records.map((record) => {
    const seq = next.get(record.sessionKey) ?? 1;
    next.set(record.sessionKey, seq + 1);
    return [record.sessionKey, record.traceId, seq, record.ts, record.kind, JSON.stringify(record.data)];
  });
  await insertRows(client, 'trajectory', TRAJECTORY_COLUMNS, rows);
}

async function appendBatch(client: PgClient, batch: readonly EvidenceWrite[]): Promise<void> {
  const trajectory: TrajectoryRecord[] = [];
  const usage: Cell[][] = [];
  for (const write of batch) {
    if (write.type === 'trajectory') trajectory.push(write.record);
    else if (write.type === 'usage') usage.push(usageCells(write.record));
  }
  await appendTrajectory(client, trajectory);
  await insertRows(client, 'token_usage', USAGE_COLUMNS, usage);
  // Turn starts and ends are a few per batch and must apply in order (an end may follow its start in the same batch).
  for (const write of batch) {
    if (write.type === 'session_start') {
      const { entry } = write;
      await client.query(
        `INSERT INTO session_index (trace_id, session_key, agent_id, channel, message_id, root_run_id, started_at, day, synthetic)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (trace_id) DO UPDATE SET session_key = excluded.session_key, agent_id = excluded.agent_id, channel = excluded.channel,
           message_id = excluded.message_id, root_run_id = excluded.root_run_id, started_at = excluded.started_at, day = excluded.day,
           synthetic = excluded.synthetic, end_reason = NULL, degraded = false, ended_at = NULL`,
        [...sessionStartCells(entry), entry.isSynthetic],
      );
    } else if (write.type === 'session_end') {
      const { end } = write;
      await client.query('UPDATE session_index SET end_reason = $1, degraded = $2, ended_at = $3 WHERE trace_id = $4', [
        end.endReason,
        end.degraded,
        end.endedAt,
        end.traceId,
      ]);
    }
  }
}

export function createPostgresEvidencePort(pool: PgPool): EvidencePort {
  return {
    ...createSessionReads(postgresStoreDb(pool)),
    ...createWindowReads(postgresStoreDb(pool)),
    async append(batch) {
      if (batch.length > 0) await transaction(pool, (client) => appendBatch(client, batch));
    },
  };
}
