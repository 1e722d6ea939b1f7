// The lexical lane: FTS5 BM25 over entry content, any of the query's words matching, scope filters in the same query.
import type { MemoryFilter, RankedHit } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';
import { filterWhere } from './memory-rows.js';

/** Cap on the distinct words taken from one query (outside input). */
const MAX_QUERY_TERMS = 32;

/**
 * Every distinct word becomes a quoted term (FTS5 operators and punctuation in the text cannot cause syntax errors),
 * joined by OR so an entry matching some of the words still ranks, below one matching more. '' without a word.
 */
export function toFtsAnyQuery(text: string): string {
  const terms = new Set((text.match(/[\p{L}\p{N}_]+/gu) ?? []).map((term) => term.toLowerCase()));
  return [...terms]
    .slice(0, MAX_QUERY_TERMS)
    .map((term) => `"${term}"`)
    .join(' OR ');
}

export function createLexicalLane(db: SqliteDatabase): (query: string, filter: MemoryFilter, limit: number) => RankedHit[] {
  const statements = new Map<string, ReturnType<typeof db.prepare<unknown[], { id: string; rank: number }>>>();
  return (query, filter, limit) => {
    const match = toFtsAnyQuery(query);
    if (match === '' || limit <= 0) return [];
    const where = filterWhere(filter, [{ sql: 'memory_fts MATCH ?', values: [match] }]);
    // bm25() is lower-is-better; ties go to the newest entry.
    const sql =
      `SELECT e.id, bm25(memory_fts) AS rank FROM memory_fts JOIN memory_entries e ON e.seq = memory_fts.rowid ` +
      `${where.sql} ORDER BY rank, e.seq DESC LIMIT ?`;
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare<unknown[], { id: string; rank: number }>(sql);
      statements.set(sql, statement);
    }
    return statement.all(...where.values, limit).map((row, index) => ({ id: row.id, rank: index + 1, score: -row.rank }));
  };
}
