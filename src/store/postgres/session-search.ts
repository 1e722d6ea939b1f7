// Session search on PostgreSQL: the user's plain words become a tsquery over the messages' tsvector; one best hit per session.
import type { SessionSearchHit } from '../index.js';
import type { Queryable } from './pool.js';
import { searchTerms, toSearchHit, type SearchRow } from '../shared/index.js';

/** Matched terms are marked [like this]; the snippet keeps about this many words around them. */
const SNIPPET_OPTIONS = 'StartSel="[", StopSel="]", MaxWords=32, MinWords=12, ShortWord=0';

/**
 * The words of the user's text, joined by spaces for plainto_tsquery (which ANDs them and has no operators, so
 * nothing in user input is query syntax). Empty when the text has no word.
 */
function toSearchWords(text: string): string {
  return searchTerms(text).join(' ');
}

// One hit per session: its best-ranked message (ties go to the newest); the snippet is built for the returned rows
// only. An owner filter applies inside `hits`, so other clients' sessions never take a place under the limit.
const searchSql = (ownerClause: string) => `
  WITH q AS (SELECT plainto_tsquery('simple', $1) AS query),
  hits AS (
    SELECT m.id, m.session_key, ts_rank(m.search, q.query) AS rank
    FROM session_messages m, q
    WHERE m.search @@ q.query${ownerClause}
  ), best AS (
    SELECT id, session_key, rank, ROW_NUMBER() OVER (PARTITION BY session_key ORDER BY rank DESC, id DESC) AS position
    FROM hits
  ), top AS (
    SELECT id, session_key, rank FROM best WHERE position = 1 ORDER BY rank DESC, id DESC LIMIT $2
  )
  SELECT top.session_key, s.agent_id, s.metadata, top.rank, m.created_at,
         ts_headline('simple', m.content, q.query, '${SNIPPET_OPTIONS}') AS snippet
  FROM top
  JOIN sessions s ON s.session_key = top.session_key
  JOIN session_messages m ON m.id = top.id
  CROSS JOIN q
  ORDER BY top.rank DESC, top.id DESC`;

const SEARCH_ALL = searchSql('');
const SEARCH_OWNED = searchSql(' AND m.session_key IN (SELECT session_key FROM sessions WHERE owner_id = $3)');

export async function searchSessions(
  db: Queryable,
  query: string,
  limit: number,
  ownedBy?: string,
): Promise<SessionSearchHit[]> {
  const words = toSearchWords(query);
  if (words === '' || limit <= 0) return [];
  const result =
    ownedBy === undefined
      ? await db.query<SearchRow>(SEARCH_ALL, [words, limit])
      : await db.query<SearchRow>(SEARCH_OWNED, [words, limit, ownedBy]);
  return result.rows.map((row) => toSearchHit(row, row.rank));
}
