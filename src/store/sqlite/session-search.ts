// Session search on SQLite: the user's plain words become an FTS5 query; one best hit per session, best first.
import type { SessionSearchHit } from '../index.js';
import type { SqliteDatabase } from './database.js';
import { searchTerms, toSearchHit, type SearchRow } from '../shared/index.js';

/** Marks the matched terms in search snippets; tokens either side of the match, at most. */
const SNIPPET_OPEN = '[';
const SNIPPET_CLOSE = ']';
const SNIPPET_TOKENS = 16;

/**
 * Turns the user's plain text into an FTS5 query: every word becomes a quoted term (so FTS5 operators and punctuation in
 * user input cannot cause syntax errors) and all terms must match. Empty when the text has no word.
 */
export function toFtsQuery(text: string): string {
  return searchTerms(text)
    .map((term) => `"${term}"`)
    .join(' ');
}

/** Searches message content for `query`; `ownedBy` limits it to that client's sessions before `limit` counts. */
export function createSessionSearch(
  db: SqliteDatabase,
): (query: string, limit: number, ownedBy?: string) => SessionSearchHit[] {
  // One hit per session: its best-ranked message (bm25 is lower-is-better; ties go to the newest message).
  // An owner filter joins inside `hits`, so other clients' sessions never take a place under the limit.
  const searchSql = (ownerClause: string) =>
    `WITH hits AS (
       SELECT rowid AS id, session_key, bm25(session_messages_fts) AS rank,
              snippet(session_messages_fts, 0, '${SNIPPET_OPEN}', '${SNIPPET_CLOSE}', '…', ${SNIPPET_TOKENS}) AS snippet
       FROM session_messages_fts WHERE session_messages_fts MATCH ?${ownerClause}
     ), best AS (
       SELECT id, session_key, rank, snippet,
              ROW_NUMBER() OVER (PARTITION BY session_key ORDER BY rank, id DESC) AS position
       FROM hits
     )
     SELECT best.session_key, s.agent_id, s.metadata, best.snippet, best.rank, m.created_at
     FROM best
     JOIN sessions s ON s.session_key = best.session_key
     JOIN session_messages m ON m.id = best.id
     WHERE best.position = 1
     ORDER BY best.rank, m.id DESC
     LIMIT ?`;
  const searchAll = db.prepare<[string, number], SearchRow>(searchSql(''));
  const searchOwned = db.prepare<[string, string, number], SearchRow>(
    searchSql(' AND session_key IN (SELECT session_key FROM sessions WHERE owner_id = ?)'),
  );

  return (query, limit, ownedBy) => {
    const match = toFtsQuery(query);
    if (match === '' || limit <= 0) return [];
    const rows = ownedBy === undefined ? searchAll.all(match, limit) : searchOwned.all(match, ownedBy, limit);
    // Reported higher-is-better: bm25() gives smaller (more negative) values to better matches.
    return rows.map((row) => toSearchHit(row, -row.rank));
  };
}
