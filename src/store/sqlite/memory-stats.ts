// Memory statistics on SQLite: counts within a scope, vectors per embedder model, the size of the file, and whether a scope is empty.
import type { MemoryScope, MemoryStats } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';
import { filterWhere } from './memory-rows.js';
import { toMemoryStats, type TypeCountRow } from '../shared/index.js';

export function createMemoryStats(db: SqliteDatabase): (scope: MemoryScope) => MemoryStats {
  const pageCount = db.prepare<[], number>('PRAGMA page_count').pluck();
  const pageSize = db.prepare<[], number>('PRAGMA page_size').pluck();
  return (scope) => {
    const where = filterWhere(scope);
    const byTypeRows = db
      .prepare<unknown[], TypeCountRow>(
        `SELECT memory_type, COUNT(*) AS entries, SUM(trust_level = 'untrusted') AS untrusted, SUM(status = 'demoted') AS demoted
         FROM memory_entries e ${where.sql} GROUP BY memory_type`,
      )
      .all(...where.values);
    const byModelRows = db
      .prepare<unknown[], { model: string; vectors: number }>(
        `SELECT i.model, COUNT(*) AS vectors FROM memory_vectors v JOIN memory_entries e ON e.seq = v.entry_seq
         JOIN memory_vector_indexes i ON i.id = v.index_id ${where.sql} GROUP BY i.model`,
      )
      .all(...where.values);
    return toMemoryStats(byTypeRows, byModelRows, (pageCount.get() ?? 0) * (pageSize.get() ?? 0));
  };
}

/** One indexed probe (memory_entries_by_scope) rather than a count. */
export function createScopeProbe(db: SqliteDatabase): (scope: MemoryScope) => boolean {
  const statements = new Map<string, ReturnType<typeof db.prepare<unknown[], number>>>();
  return (scope) => {
    const where = filterWhere(scope);
    const sql = `SELECT EXISTS (SELECT 1 FROM memory_entries e ${where.sql})`;
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare<unknown[], number>(sql).pluck();
      statements.set(sql, statement);
    }
    return statement.get(...where.values) === 1;
  };
}
