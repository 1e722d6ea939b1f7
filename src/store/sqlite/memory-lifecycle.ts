// The memory lifecycle on SQLite: recalls (which promote demoted entries) and the per-agent sweep that demotes and evicts.
import type { LifecyclePolicy, MemoryStatus } from '../index.js';
import type { SqliteDatabase } from './database.js';
import type { MemoryDeletes } from './memory-deletes.js';
import { inList } from './memory-rows.js';
import type { VectorLane, VectorStore } from './vector-sketch/index.js';
import { chunks, LAST_USED, sweepOutcome, type SweepOutcome } from '../shared/index.js';

export interface MemoryLifecycle {
  markRecalled(ids: readonly string[], at: number): void;
  demote(ids: readonly string[]): number;
  sweep(agentId: string, policy: LifecyclePolicy, now: number): SweepOutcome;
}

interface Candidate {
  seq: number;
  id: string;
}

export function createMemoryLifecycle(
  db: SqliteDatabase,
  vectors: VectorStore,
  lane: VectorLane,
  deletes: MemoryDeletes,
): MemoryLifecycle {
  const addPromotions = db.prepare(
    'INSERT INTO memory_promotions (agent_id, pending) VALUES (?, ?) ON CONFLICT (agent_id) DO UPDATE SET pending = pending + excluded.pending',
  );
  const takePromotions = db
    .prepare<[string], number>('DELETE FROM memory_promotions WHERE agent_id = ? RETURNING pending')
    .pluck();
  const countOf = db.prepare<[string], number>('SELECT COUNT(*) FROM memory_entries WHERE agent_id = ?').pluck();
  const stillUsed = db.prepare<[string, number], Candidate>(
    `SELECT seq, id FROM memory_entries WHERE agent_id = ? AND status = 'demoted' AND ${LAST_USED} > ?`,
  );
  const unused = db.prepare<[string, string, number], Candidate>(
    `SELECT seq, id FROM memory_entries WHERE agent_id = ? AND status = ? AND ${LAST_USED} <= ?`,
  );
  // Per tenant, the demoted entries past the cap, least recently used first out.
  const overCap = db.prepare<[string, number], Candidate>(
    `SELECT seq, id FROM (
       SELECT seq, id, ROW_NUMBER() OVER (PARTITION BY tenant_id ORDER BY ${LAST_USED} DESC, seq DESC) AS position
       FROM memory_entries WHERE agent_id = ? AND status = 'demoted'
     ) WHERE position > ?`,
  );

  function setStatus(seqs: readonly number[], status: MemoryStatus): void {
    for (const chunk of chunks(seqs)) {
      const where = inList('seq', chunk);
      db.prepare(`UPDATE memory_entries SET status = ? WHERE ${where.sql}`).run(status, ...where.values);
      lane.statusChanged(vectors.vectorsOf(chunk), status);
    }
  }

  const markRecalled = db.transaction((ids: readonly string[], at: number) => {
    for (const chunk of chunks([...new Set(ids)])) {
      const where = inList('id', chunk);
      const rows = db
        .prepare<unknown[], { seq: number; agent_id: string; status: string }>(
          `SELECT seq, agent_id, status FROM memory_entries WHERE ${where.sql}`,
        )
        .all(...where.values);
      const promotedByAgent = new Map<string, number>();
      const promoted: number[] = [];
      for (const row of rows) {
        if (row.status !== 'demoted') continue;
        promoted.push(row.seq);
        promotedByAgent.set(row.agent_id, (promotedByAgent.get(row.agent_id) ?? 0) + 1);
      }
      db.prepare(
        `UPDATE memory_entries SET recall_count = recall_count + 1, last_recalled_at = ? WHERE ${where.sql}`,
      ).run(at, ...where.values);
      setStatus(promoted, 'active');
      // The agent's next sweep reports these as promoted.
      for (const [agentId, count] of promotedByAgent) addPromotions.run(agentId, count);
    }
  });

  const demote = db.transaction((ids: readonly string[]): number => {
    let demoted = 0;
    for (const chunk of chunks([...new Set(ids)])) {
      const where = inList('id', chunk);
      const seqs = db
        .prepare<unknown[], number>(`SELECT seq FROM memory_entries WHERE status = 'active' AND ${where.sql}`)
        .pluck()
        .all(...where.values);
      setStatus(seqs, 'demoted');
      demoted += seqs.length;
    }
    return demoted;
  });

  const sweep = db.transaction((agentId: string, policy: LifecyclePolicy, now: number): SweepOutcome => {
    const scanned = countOf.get(agentId) ?? 0;
    const recalled = stillUsed.all(agentId, now - policy.demoteAfterMs);
    setStatus(
      recalled.map((row) => row.seq),
      'active',
    );
    const promoted = recalled.length + (takePromotions.get(agentId) ?? 0);
    const demoting = unused.all(agentId, 'active', now - policy.demoteAfterMs);
    setStatus(
      demoting.map((row) => row.seq),
      'demoted',
    );
    const aged = unused.all(agentId, 'demoted', now - policy.evictAfterMs);
    deletes.deleteSeqs(aged.map((row) => row.seq));
    const crowded = overCap.all(agentId, policy.maxDemotedPerAgent);
    deletes.deleteSeqs(crowded.map((row) => row.seq));
    return sweepOutcome(agentId, { scanned, promoted }, demoting, [...aged, ...crowded]);
  });

  return {
    markRecalled: (ids, at) => markRecalled.immediate(ids, at),
    demote: (ids) => demote.immediate(ids),
    sweep: (agentId, policy, now) => sweep.immediate(agentId, policy, now),
  };
}
