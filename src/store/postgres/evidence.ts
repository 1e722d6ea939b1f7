// The PostgreSQL EvidencePort's writes: one transaction per batch, a turn as one row whatever its steps (all the
// batch's turns in one upsert); its reads come from the shared layer.
import { createEvidenceReads, encodeSteps, sessionStartCells, usageCells, type Cell } from '../shared/index.js';
import type { EvidencePort, EvidenceWrite, TurnWrite } from '../ports/evidence.js';
import { insertRows, type CellValue, type ColumnType } from './bulk-insert.js';
import { transaction, type PgClient, type PgPool } from './pool.js';
import { postgresStoreDb } from './store-db.js';

const LOOSE_COLUMNS = [
  ['session_key', 'text'],
  ['trace_id', 'text'],
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
const TURN_COLUMNS: readonly (readonly [string, ColumnType])[] = [
  ['trace_id', 'text'],
  ['session_key', 'text'],
  ['agent_id', 'text'],
  ['channel', 'text'],
  ['message_id', 'text'],
  ['root_run_id', 'text'],
  ['started_at', 'bigint'],
  ['day', 'text'],
  ['synthetic', 'boolean'],
  ['end_reason', 'text'],
  ['degraded', 'boolean'],
  ['ended_at', 'bigint'],
  ['steps', 'text'],
];
const SET_INDEX = `session_key = excluded.session_key, agent_id = excluded.agent_id, channel = excluded.channel,
  message_id = excluded.message_id, root_run_id = excluded.root_run_id, started_at = excluded.started_at, day = excluded.day,
  synthetic = excluded.synthetic, end_reason = excluded.end_reason, degraded = excluded.degraded, ended_at = excluded.ended_at`;

const turnCells = (turn: TurnWrite): CellValue[] => [
  ...sessionStartCells(turn),
  turn.isSynthetic,
  turn.end?.endReason ?? null,
  turn.end?.degraded === true,
  turn.end?.endedAt ?? null,
  encodeSteps(turn.steps),
];

/**
 * The batch's turns in one upsert, each trace once (its last write, which replaces the earlier ones), in trace order
 * so two batches never wait on each other's rows in opposite orders.
 */
async function upsertTurns(client: PgClient, turns: readonly TurnWrite[]): Promise<void> {
  if (turns.length === 0) return;
  const last = new Map<string, TurnWrite>();
  for (const turn of turns) last.set(turn.traceId, turn);
  const rows = [...last.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, turn]) => turnCells(turn));
  const arrays = TURN_COLUMNS.map((_, index) => rows.map((row) => row[index] ?? null));
  const names = TURN_COLUMNS.map(([name]) => name).join(', ');
  const unnest = TURN_COLUMNS.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ');
  await client.query(
    `INSERT INTO turns (${names}) SELECT * FROM unnest(${unnest})
     ON CONFLICT (trace_id) DO UPDATE SET ${SET_INDEX}, steps = excluded.steps`,
    arrays,
  );
}

async function appendBatch(client: PgClient, batch: readonly EvidenceWrite[]): Promise<void> {
  const turns: TurnWrite[] = [];
  const loose: CellValue[][] = [];
  const usage: Cell[][] = [];
  for (const write of batch) {
    if (write.type === 'turn') turns.push(write.turn);
    else if (write.type === 'trajectory') {
      const { record } = write;
      loose.push([record.sessionKey, record.traceId, record.ts, record.kind, JSON.stringify(record.data)]);
    } else if (write.type === 'usage') usage.push(usageCells(write.record));
  }
  await upsertTurns(client, turns);
  await insertRows(client, 'loose_records', LOOSE_COLUMNS, loose);
  await insertRows(client, 'token_usage', USAGE_COLUMNS, usage);
  // Index entries alone (fixtures, older callers) are a few per batch and must apply in order (an end may follow its
  // start in the same batch); an entry keeps the steps its turn already has.
  for (const write of batch) {
    if (write.type === 'session_start') {
      const { entry } = write;
      await client.query(
        `INSERT INTO turns (trace_id, session_key, agent_id, channel, message_id, root_run_id, started_at, day, synthetic)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (trace_id) DO UPDATE SET session_key = excluded.session_key, agent_id = excluded.agent_id, channel = excluded.channel,
           message_id = excluded.message_id, root_run_id = excluded.root_run_id, started_at = excluded.started_at, day = excluded.day,
           synthetic = excluded.synthetic, end_reason = NULL, degraded = false, ended_at = NULL`,
        [...sessionStartCells(entry), entry.isSynthetic],
      );
    } else if (write.type === 'session_end') {
      const { end } = write;
      await client.query('UPDATE turns SET end_reason = $1, degraded = $2, ended_at = $3 WHERE trace_id = $4', [
        end.endReason,
        end.degraded,
        end.endedAt,
        end.traceId,
      ]);
    }
  }
}

export function createPostgresEvidencePort(pool: PgPool): EvidencePort {
  const store = postgresStoreDb(pool);
  return {
    ...createEvidenceReads(store),
    async append(batch) {
      if (batch.length > 0) await transaction(pool, (client) => appendBatch(client, batch));
    },
  };
}
