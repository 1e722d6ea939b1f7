// What both backends' session searches share around their text-search SQL (FTS5 on SQLite, tsvector on PostgreSQL): the
// words taken from the user's text, and a best-matching message as a search hit.
import type { SessionSearchHit } from '../index.js';
import { parseJsonObject } from './session-rows.js';

/** Cap on the terms taken from one search query (outside input). */
const MAX_QUERY_TERMS = 32;

/** The words of the user's plain text: the only part of it a search query reads. */
export const searchTerms = (text: string): string[] => (text.match(/[\p{L}\p{N}_]+/gu) ?? []).slice(0, MAX_QUERY_TERMS);

/** A session's best matching message, as each backend's search query selects it. */
export interface SearchRow {
  session_key: string;
  agent_id: string;
  metadata: string;
  snippet: string;
  rank: number;
  created_at: number;
}

/** `score` is higher for a better match. */
export function toSearchHit(row: SearchRow, score: number): SessionSearchHit {
  const { channelType } = parseJsonObject(row.metadata);
  return {
    sessionKey: row.session_key,
    agentId: row.agent_id,
    channelType: typeof channelType === 'string' ? channelType : null,
    snippet: row.snippet,
    score,
    timestamp: row.created_at,
  };
}
