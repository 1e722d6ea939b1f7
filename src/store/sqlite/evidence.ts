// The SQLite EvidencePort: one IMMEDIATE transaction per batch, so trajectory seq allocation holds the write lock.
import type { EvidencePort, EvidenceWrite, SessionIndexEnd } from '../ports/evidence.js';
import type { SqliteDatabase } from './database.js';
import { createSqliteSessionReads } from './evidence-sessions.js';
import { createSqliteWindowReads } from './evidence-window.js';

const dayOf = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

export function createSqliteEvidencePort(db: SqliteDatabase): EvidencePort {
  const lastSeq = db.prepare<[string], { seq: number }>('SELECT COALESCE(MAX(seq), 0) AS seq FROM trajectory WHERE session_key = ?');
  const insertTrajectory = db.prepare('INSERT INTO trajectory (session_key, trace_id, seq, ts, kind, data) VALUES (?, ?, ?, ?, ?, ?)');
  const insertIndex = db.prepare(
    `INSERT OR REPLACE INTO session_index (trace_id, session_key, agent_id, channel, message_id, root_run_id, started_at, day, synthetic, end_reason, degraded, ended_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const finishIndex = db.prepare('UPDATE session_index SET end_reason = ?, degraded = ?, ended_at = ? WHERE trace_id = ?');
  const insertUsage = db.prepare(
    `INSERT INTO token_usage (ts, agent_id, session_key, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const writeBatch = db.transaction((batch: readonly EvidenceWrite[]) => {
    // Read once per session under the write lock (BEGIN IMMEDIATE), then counted up in memory for the batch.
    const nextSeq = new Map<string, number>();
    // A turn that started and ended within one batch (most of them) is written as one finished row.
    const endsInBatch = new Map<string, SessionIndexEnd>();
    for (const write of batch) if (write.type === 'session_end') endsInBatch.set(write.end.traceId, write.end);
    const startedInBatch = new Set<string>();
    for (const write of batch) {
      if (write.type === 'trajectory') {
        const { record } = write;
        const seq = (nextSeq.get(record.sessionKey) ?? lastSeq.get(record.sessionKey)?.seq ?? 0) + 1;
        nextSeq.set(record.sessionKey, seq);
        insertTrajectory.run(record.sessionKey, record.traceId, seq, record.ts, record.kind, JSON.stringify(record.data));
      } else if (write.type === 'session_start') {
        const { entry } = write;
        const end = endsInBatch.get(entry.traceId);
        if (end !== undefined) startedInBatch.add(entry.traceId);
        insertIndex.run(entry.traceId, entry.sessionKey, entry.agentId, entry.channel, entry.messageId ?? null, entry.rootRunId ?? null, entry.startedAt,
          dayOf(entry.startedAt), entry.isSynthetic ? 1 : 0, end?.endReason ?? null, end?.degraded === true ? 1 : 0, end?.endedAt ?? null);
      } else if (write.type === 'session_end') {
        const { end } = write;
        if (!startedInBatch.has(end.traceId)) finishIndex.run(end.endReason, end.degraded ? 1 : 0, end.endedAt, end.traceId);
      } else {
        const { record } = write;
        insertUsage.run(record.ts, record.agentId, record.sessionKey, record.provider, record.model, record.inputTokens, record.outputTokens,
          record.cacheReadTokens, record.cacheWriteTokens, record.costUsd);
      }
    }
  });

  return {
    ...createSqliteSessionReads(db),
    ...createSqliteWindowReads(db),
    async append(batch) {
      if (batch.length > 0) writeBatch.immediate(batch);
    },
  };
}
