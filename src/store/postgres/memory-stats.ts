// Memory statistics on PostgreSQL: counts within a scope, vectors per embedder model, the size of the memory relations.
import type { MemoryScope, MemoryStats, MemoryType } from '../ports/index.js';
import { filterConditions, isMemoryType } from './memory-rows.js';
import type { Queryable } from './pool.js';
import { buildWhere, Params } from './where.js';

const MEMORY_RELATIONS = ['memory_entries', 'memory_links', 'memory_vectors', 'memory_embedding_cache'];

export async function memoryStats(db: Queryable, scope: MemoryScope): Promise<MemoryStats> {
  const params = new Params();
  const where = buildWhere(params, filterConditions(scope, params));
  const byTypeRows = await db.query<{ memory_type: string; entries: number; untrusted: number; demoted: number }>(
    `SELECT memory_type, COUNT(*) AS entries, COUNT(*) FILTER (WHERE trust_level = 'untrusted') AS untrusted,
       COUNT(*) FILTER (WHERE status = 'demoted') AS demoted
     FROM memory_entries e ${where} GROUP BY memory_type`,
    params.values,
  );
  const byModelRows = await db.query<{ model: string; vectors: number }>(
    `SELECT v.model, COUNT(*) AS vectors FROM memory_vectors v JOIN memory_entries e ON e.seq = v.entry_seq ${where} GROUP BY v.model`,
    params.values,
  );
  const size = await db.query<{ bytes: number }>(
    'SELECT SUM(pg_total_relation_size(name::regclass)) AS bytes FROM unnest($1::text[]) AS name',
    [MEMORY_RELATIONS],
  );
  const byType: Partial<Record<MemoryType, number>> = {};
  let totalEntries = 0;
  let untrusted = 0;
  let demoted = 0;
  for (const row of byTypeRows.rows) {
    if (isMemoryType(row.memory_type)) byType[row.memory_type] = row.entries;
    totalEntries += row.entries;
    untrusted += row.untrusted;
    demoted += row.demoted;
  }
  const vectorsByModel: Record<string, number> = {};
  for (const row of byModelRows.rows) vectorsByModel[row.model] = row.vectors;
  return { totalEntries, byType, untrusted, demoted, vectorsByModel, dbSizeBytes: size.rows[0]?.bytes ?? 0 };
}

/** One indexed probe (memory_entries_by_scope) rather than a count. */
export async function hasEntries(db: Queryable, scope: MemoryScope): Promise<boolean> {
  const params = new Params();
  const where = buildWhere(params, filterConditions(scope, params));
  return (
    (
      await db.query<{ found: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM memory_entries e ${where}) AS found`,
        params.values,
      )
    ).rows[0]?.found === true
  );
}
