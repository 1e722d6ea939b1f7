// The memory lifecycle on PostgreSQL: recalls (which promote demoted entries) and the per-agent sweep that demotes and evicts.
import type { LifecyclePolicy } from '../index.js';
import { LAST_USED, sweepOutcome, type SweepOutcome } from '../shared/index.js';
import { deleteSeqs } from './memory-deletes.js';
import { transaction, type PgPool } from './pool.js';

interface Candidate {
  seq: number;
  id: string;
}

export function createMemoryLifecycle(pool: PgPool) {
  return {
    markRecalled: (ids: readonly string[], at: number): Promise<void> =>
      transaction(pool, async (client) => {
        // Demoted entries recalled become active again; their agents' next sweeps report them as promoted.
        const updated = await client.query<{ agent_id: string; was_demoted: boolean }>(
          `UPDATE memory_entries e SET recall_count = e.recall_count + 1, last_recalled_at = $2, status = 'active'
           FROM (SELECT seq, status = 'demoted' AS was_demoted FROM memory_entries WHERE id = ANY($1::text[]) FOR UPDATE) AS before
           WHERE e.seq = before.seq RETURNING e.agent_id, before.was_demoted`,
          [[...new Set(ids)], at],
        );
        const promoted = new Map<string, number>();
        for (const row of updated.rows)
          if (row.was_demoted) promoted.set(row.agent_id, (promoted.get(row.agent_id) ?? 0) + 1);
        for (const [agentId, count] of [...promoted].sort(([a], [b]) => (a < b ? -1 : 1))) {
          await client.query(
            `INSERT INTO memory_promotions (agent_id, pending) VALUES ($1, $2)
             ON CONFLICT (agent_id) DO UPDATE SET pending = memory_promotions.pending + excluded.pending`,
            [agentId, count],
          );
        }
      }),
    demote: async (ids: readonly string[]): Promise<number> =>
      (
        await pool.query(
          `UPDATE memory_entries SET status = 'demoted' WHERE id = ANY($1::text[]) AND status = 'active'`,
          [[...new Set(ids)]],
        )
      ).rowCount ?? 0,
    sweep: (agentId: string, policy: LifecyclePolicy, now: number): Promise<SweepOutcome> =>
      transaction(pool, async (client) => {
        const scanned =
          (await client.query<{ n: number }>('SELECT COUNT(*) AS n FROM memory_entries WHERE agent_id = $1', [agentId]))
            .rows[0]?.n ?? 0;
        const demoteBefore = now - policy.demoteAfterMs;
        const recalled = await client.query(
          `UPDATE memory_entries SET status = 'active' WHERE agent_id = $1 AND status = 'demoted' AND ${LAST_USED} > $2`,
          [agentId, demoteBefore],
        );
        const taken = await client.query<{ pending: number }>(
          'DELETE FROM memory_promotions WHERE agent_id = $1 RETURNING pending',
          [agentId],
        );
        const promoted = (recalled.rowCount ?? 0) + (taken.rows[0]?.pending ?? 0);
        const demoting = await client.query<Candidate>(
          `UPDATE memory_entries SET status = 'demoted' WHERE agent_id = $1 AND status = 'active' AND ${LAST_USED} <= $2 RETURNING seq, id`,
          [agentId, demoteBefore],
        );
        const aged = await client.query<Candidate>(
          `SELECT seq, id FROM memory_entries WHERE agent_id = $1 AND status = 'demoted' AND ${LAST_USED} <= $2`,
          [agentId, now - policy.evictAfterMs],
        );
        await deleteSeqs(
          client,
          aged.rows.map((row) => row.seq),
        );
        // Per tenant, the demoted entries past the cap, least recently used first out.
        const crowded = await client.query<Candidate>(
          `SELECT seq, id FROM (
             SELECT seq, id, ROW_NUMBER() OVER (PARTITION BY tenant_id ORDER BY ${LAST_USED} DESC, seq DESC) AS position
             FROM memory_entries WHERE agent_id = $1 AND status = 'demoted'
           ) AS ranked WHERE position > $2`,
          [agentId, policy.maxDemotedPerAgent],
        );
        await deleteSeqs(
          client,
          crowded.rows.map((row) => row.seq),
        );
        const demoted = demoting.rows.sort((a, b) => a.seq - b.seq);
        return sweepOutcome(agentId, { scanned, promoted }, demoted, [...aged.rows, ...crowded.rows]);
      }),
  };
}
