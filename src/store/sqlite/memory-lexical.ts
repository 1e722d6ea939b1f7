// The lexical lane: FTS5 BM25 over entry content, any of the query's discriminating words matching, scope filters in the same query.
import { ownerCondition, passesOwnerCondition, type MemoryFilter, type RankedHit } from '../index.js';
import type { SqliteDatabase } from './database.js';
import { filterWhere } from './memory-rows.js';
import { statementCache } from './store-db.js';
import { wordsOf, type ScopeTermCounts, type TermCounts } from './memory-term-counts.js';
import type { KnownEntry } from './vector-sketch/index.js';
import type { ReaderThread } from './sql-reader.js';

/** Cap on the distinct words taken from one query (outside input). */
const MAX_QUERY_TERMS = 32;

/**
 * Entries a query may match, counted per word in the scope. FTS5 scores every entry that matches any word, so a
 * word found in most entries ("the", "user") makes a search cost the whole scope while adding almost nothing to
 * BM25 (its IDF is near zero). Words are taken rarest first while their counts add up to at most this.
 */
export const LEXICAL_MATCH_BUDGET = 4_000;

/** Every distinct word as a quoted term (FTS5 operators and punctuation in the text cannot cause syntax errors), joined by OR. */
export function toFtsAnyQuery(text: string): string {
  return [...wordsOf(text)]
    .slice(0, MAX_QUERY_TERMS)
    .map((term) => `"${term}"`)
    .join(' OR ');
}

/**
 * The words worth matching in this scope: none that no entry contains, and, rarest first, those whose entry counts
 * fit the budget. A query whose rarest word is in more entries than the budget has no discriminating word and
 * matches nothing here (the vector lane still ranks it).
 */
export function discriminatingWords(
  query: string,
  counts: ScopeTermCounts,
  budget: number = LEXICAL_MATCH_BUDGET,
): string[] {
  const found = [...wordsOf(query)]
    .slice(0, MAX_QUERY_TERMS)
    .map((word) => ({ word, entries: counts.byWord.get(word) ?? 0 }))
    .filter(({ entries }) => entries > 0)
    .sort((a, b) => a.entries - b.entries);
  const chosen: string[] = [];
  let matched = 0;
  for (const { word, entries } of found) {
    if (matched + entries > budget) break;
    chosen.push(word);
    matched += entries;
  }
  return chosen;
}

/** SQLite's hex() of a text: its UTF-8 bytes, upper case. */
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex').toUpperCase();

/**
 * The scope tokens the insert trigger (migrations 11 and 18) writes in the `scope` column, as a match on that column:
 * matching it lets FTS5 rank only the scope's rows. The SQL filter still decides; the tokens only narrow the work.
 * `exact` when the match alone keeps to the tenant, agent and owner of the filter.
 */
function scopeMatch(filter: MemoryFilter): { tokens: string; exact: boolean } | undefined {
  const { tenantId, agentId } = filter;
  const owner = ownerCondition(filter);
  if (owner === undefined) {
    if (tenantId === undefined) return undefined;
    return {
      tokens: agentId === undefined ? `"t${hex(tenantId)}"` : `"a${hex(tenantId)}x${hex(agentId)}"`,
      exact: true,
    };
  }
  if (owner.tenantIds.length === 0) {
    if (tenantId !== undefined && agentId !== undefined)
      return { tokens: `"b${hex(tenantId)}x${hex(agentId)}x${hex(owner.ownerId)}"`, exact: true };
    return { tokens: `"o${hex(owner.ownerId)}"`, exact: tenantId === undefined && agentId === undefined };
  }
  // Across tenants (ownerCondition keeps the tenant list only then): the owner's rows and those of its tenants.
  const tokens = [`"o${hex(owner.ownerId)}"`, ...owner.tenantIds.map((tenant) => `"t${hex(tenant)}"`)].join(' OR ');
  return { tokens: `(${tokens})`, exact: agentId === undefined };
}

/** No tenant, agent or owner condition: every entry is in the scope. */
const isUnscoped = (filter: MemoryFilter) =>
  filter.tenantId === undefined && filter.agentId === undefined && ownerCondition(filter) === undefined;

/**
 * Whether FTS5's match alone keeps to the filter: no type, trust or status condition, and either the scope's tokens
 * in the match (when they are exact), no scope at all, or a scope holding every entry. Then the top rows can be
 * ranked before the join.
 */
function matchesOnlyTheScope(filter: MemoryFilter, exactTokens: boolean, scopeIsEverything: boolean): boolean {
  if (filter.memoryType !== undefined || filter.trustLevel !== undefined || filter.status !== undefined) return false;
  return exactTokens || isUnscoped(filter) || scopeIsEverything;
}

// bm25() is lower-is-better, and weighs the scope column 0 so the scope token never moves a rank; ties go to the
// newest entry.

interface LexicalQuery {
  sql: string;
  values: unknown[];
}

/** Ranks the matches alone: the scope is confirmed afterwards, entry by entry (`named`). */
function rankedFirst(match: string, _filter: MemoryFilter, limit: number): LexicalQuery {
  return {
    sql: 'SELECT rowid, bm25(memory_fts, 1.0, 0.0) AS rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank, rowid DESC LIMIT ?',
    values: [match, limit],
  };
}

/** Joins every match to its entry to apply the filter, then ranks what passes. */
function filteredFirst(match: string, filter: MemoryFilter, limit: number): LexicalQuery {
  const where = filterWhere(filter, [(params) => `memory_fts MATCH ${params.add(match)}`]);
  return {
    sql:
      `SELECT e.seq, bm25(memory_fts, 1.0, 0.0) AS rank FROM memory_fts JOIN memory_entries e ON e.seq = memory_fts.rowid ` +
      `${where.sql} ORDER BY rank, e.seq DESC LIMIT ?`,
    values: [...where.values, limit],
  };
}

const inScope = (entry: KnownEntry, filter: MemoryFilter) =>
  (filter.tenantId === undefined || entry.tenantId === filter.tenantId) &&
  (filter.agentId === undefined || entry.agentId === filter.agentId) &&
  passesOwnerCondition(ownerCondition(filter), entry.tenantId, entry.ownerId);

/** The rows of a statement as arrays, its SQL prepared once (both the ranked queries and the lookups read them so). */
type RawRows = <R>(sql: string, values: readonly unknown[]) => R[];

/**
 * The ranked query answers with seqs, which are named here: from the entries the vector lane holds in memory (`known`)
 * and, for the rest, in one lookup that applies the filter again. An entry outside the filter's scope is never named
 * (one that moved scope or was deleted since the query's snapshot, or a seq reused since).
 */
function createNamer(rawRows: RawRows, known: (seq: number) => KnownEntry | undefined) {
  const lookedUp = (seqs: readonly number[], filter: MemoryFilter): Map<number, string> => {
    const where = filterWhere(filter);
    const sql = `SELECT e.seq, e.id FROM json_each(?) c CROSS JOIN memory_entries e ON e.seq = c.value ${where.sql}`;
    return new Map(rawRows<[number, string]>(sql, [JSON.stringify(seqs), ...where.values]));
  };
  /** `ranked`: each hit's seq and BM25 rank, end to end, best first. */
  return (ranked: Float64Array, filter: MemoryFilter): RankedHit[] => {
    const ids: (string | undefined)[] = [];
    const unknown: number[] = [];
    for (let at = 0; at < ranked.length; at += 2) {
      const seq = ranked[at] ?? 0;
      const entry = known(seq);
      if (entry === undefined) unknown.push(seq);
      ids.push(entry !== undefined && inScope(entry, filter) ? entry.id : undefined);
    }
    const found = unknown.length === 0 ? undefined : lookedUp(unknown, filter);
    const hits: RankedHit[] = [];
    ids.forEach((held, index) => {
      const id = held ?? found?.get(ranked[2 * index] ?? 0);
      if (id !== undefined) hits.push({ id, rank: hits.length + 1, score: -(ranked[2 * index + 1] ?? 0) });
    });
    return hits;
  };
}

/**
 * With a reader thread, the ranked query runs there, on its own connection, while the caller goes on (a memory search
 * runs its vector lane meanwhile); the words are still chosen here, where the counts are kept.
 */
export function createLexicalLane(
  db: SqliteDatabase,
  termCounts: TermCounts,
  known: (seq: number) => KnownEntry | undefined,
  reader?: ReaderThread,
): (query: string, filter: MemoryFilter, limit: number) => Promise<RankedHit[]> {
  const prepare = statementCache(db);
  const rawRows: RawRows = <R>(sql: string, values: readonly unknown[]) => {
    const statement = prepare(sql).raw();
    return statement.all(...values) as R[];
  };
  const named = createNamer(rawRows, known);
  const here = (sql: string, values: readonly unknown[]) =>
    Float64Array.from(rawRows<[number, number]>(sql, values).flat());
  return async (query, filter, limit) => {
    if (limit <= 0) return [];
    const counts = termCounts.of(filter);
    const words = discriminatingWords(query, counts);
    if (words.length === 0) return [];
    const terms = words.map((word) => `"${word}"`).join(' OR ');
    // The tokens' own lists are as long as the scope: worth walking only when the scope is a small part of the store,
    // where they spare matching the words in other scopes' entries.
    const scoped = counts.entries * 2 < termCounts.totalEntries() ? scopeMatch(filter) : undefined;
    const match = scoped === undefined ? `content : (${terms})` : `scope : ${scoped.tokens} AND content : (${terms})`;
    const form = matchesOnlyTheScope(filter, scoped?.exact === true, counts.entries === termCounts.totalEntries())
      ? rankedFirst
      : filteredFirst;
    const { sql, values } = form(match, filter, limit);
    const ranked =
      reader?.available() === true ? await reader.numbers(sql, values, () => here(sql, values)) : here(sql, values);
    return named(ranked, filter);
  };
}
