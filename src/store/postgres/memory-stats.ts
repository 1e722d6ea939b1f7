// Memory statistics on PostgreSQL: counts within a scope, vectors per embedder model, the size of the memory relations.
import type { MemoryScope, MemoryStats } from '../ports/index.js';
import { buildWhere, memoryFilterConditions, Params, toMemoryStats, type TypeCountRow } from '../shared/index.js';
import type { Queryable } from './pool.js';

const MEMORY_RELATIONS = ['memory_entries', 'memory_links', 'memory_vectors', 'memory_embedding_cache'];

export async function memoryStats(db: Queryable, scope: MemoryScope): Promise<MemoryStats> {
  const params = new Params('postgres');
  const where = buildWhere(params, memoryFilterConditions(scope));
  const byTypeRows = await db.query<TypeCountRow>(
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
  return toMemoryStats(byTypeRows.rows, byModelRows.rows, size.rows[0]?.bytes ?? 0);
}

/** One indexed probe (memory_entries_by_scope) rather than a count. */
export async function hasEntries(db: Queryable, scope: MemoryScope): Promise<boolean> {
  const params = new Params('postgres');
  const where = buildWhere(params, memoryFilterConditions(scope));
  return (
    (
      await db.query<{ found: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM memory_entries e ${where}) AS found`,
        params.values,
      )
    ).rows[0]?.found === true
  );
}
