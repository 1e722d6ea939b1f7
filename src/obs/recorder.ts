// Records counts-only evidence (trajectory, session index, token usage) to SQLite in batches, off the hot path.
import type { Logger } from 'pino';
import type { SqliteDatabase } from '../store/sqlite/index.js';
import { createBatchWriter } from './batch-writer.js';

/** One trajectory record: a kind and a small data object of counts, ids and enums; never message bodies. */
export interface TrajectoryRecord {
  sessionKey: string;
  traceId: string;
  kind: string;
  ts: number;
  data: Record<string, unknown>;
}

export interface SessionIndexStart {
  traceId: string;
  sessionKey: string;
  agentId: string;
  channel: string;
  messageId?: string;
  rootRunId?: string;
  startedAt: number;
  isSynthetic: boolean;
}

export interface UsageRecord {
  ts: number;
  agentId: string;
  sessionKey: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export interface Recorder {
  trajectory(record: TrajectoryRecord): void;
  startSession(entry: SessionIndexStart): void;
  endSession(traceId: string, outcome: { endReason: string; degraded: boolean; endedAt: number }): void;
  usage(record: UsageRecord): void;
  /** Writes everything buffered now (reports call it before reading). */
  flush(): void;
  close(): void;
}

export interface RecorderOptions {
  db: SqliteDatabase;
  log?: Logger;
  /** Buffered writes are flushed at most this long after they were made. */
  flushIntervalMs?: number;
  /** A buffer this large is flushed at once. */
  maxBuffered?: number;
}

export function createRecorder({ db, log, flushIntervalMs = 250, maxBuffered = 500 }: RecorderOptions): Recorder {
  const insertTrajectory = db.prepare(
    `INSERT INTO trajectory (session_key, trace_id, seq, ts, kind, data)
     VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM trajectory WHERE session_key = ?), ?, ?, ?)`,
  );
  const insertIndex = db.prepare(
    `INSERT OR REPLACE INTO session_index (trace_id, session_key, agent_id, channel, message_id, root_run_id, started_at, day, synthetic)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const finishIndex = db.prepare('UPDATE session_index SET end_reason = ?, degraded = ?, ended_at = ? WHERE trace_id = ?');
  const insertUsage = db.prepare(
    `INSERT INTO token_usage (ts, agent_id, session_key, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  const writer = createBatchWriter({ db, flushIntervalMs, maxBuffered, ...(log === undefined ? {} : { log }) });
  const enqueue = (write: () => void) => writer.enqueue(write);

  return {
    trajectory(record) {
      const data = JSON.stringify(record.data);
      enqueue(() => insertTrajectory.run(record.sessionKey, record.traceId, record.sessionKey, record.ts, record.kind, data));
    },
    startSession(entry) {
      const day = new Date(entry.startedAt).toISOString().slice(0, 10);
      enqueue(() =>
        insertIndex.run(entry.traceId, entry.sessionKey, entry.agentId, entry.channel, entry.messageId ?? null, entry.rootRunId ?? null, entry.startedAt, day, entry.isSynthetic ? 1 : 0),
      );
    },
    endSession(traceId, outcome) {
      enqueue(() => finishIndex.run(outcome.endReason, outcome.degraded ? 1 : 0, outcome.endedAt, traceId));
    },
    usage(record) {
      enqueue(() =>
        insertUsage.run(record.ts, record.agentId, record.sessionKey, record.provider, record.model, record.inputTokens, record.outputTokens, record.cacheReadTokens, record.cacheWriteTokens, record.costUsd),
      );
    },
    flush: () => writer.flush(),
    close: () => writer.close(),
  };
}
