// The memory lanes on PostgreSQL: ts_rank over the entries' tsvector (any query word matching) and exact cosine over
// real[] vectors, each with the scope and filters inside the same query.
import type { EmbeddingVector, MemoryFilter, RankedHit } from '../index.js';
import type { Queryable } from './pool.js';
import { buildWhere, memoryFilterConditions, Params } from '../shared/index.js';

/** Cap on the distinct words taken from one query (outside input). */
const MAX_QUERY_TERMS = 32;

/** The distinct words of a text, lower case: letters, digits and underscores, nothing a tsquery could read as syntax. */
export function queryWords(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].slice(0, MAX_QUERY_TERMS);
}

/**
 * Every word through plainto_tsquery (so the 'simple' configuration splits it exactly as it split the content), the
 * parts joined by OR: an entry matching more of the words ranks higher.
 */
const ANY_WORD_QUERY = `(SELECT string_agg('(' || t::text || ')', ' | ')
  FROM unnest($1::text[]) AS w, LATERAL plainto_tsquery('simple', w) AS t WHERE numnode(t) > 0)::tsquery`;

export async function searchLexical(
  db: Queryable,
  query: string,
  filter: MemoryFilter,
  limit: number,
): Promise<RankedHit[]> {
  const words = queryWords(query);
  if (words.length === 0 || limit <= 0) return [];
  const params = new Params('postgres', [words]);
  const where = buildWhere(params, [...memoryFilterConditions(filter), () => 'e.search @@ q.query']);
  // Ties go to the newest entry.
  const result = await db.query<{ id: string; score: number }>(
    `WITH q AS (SELECT ${ANY_WORD_QUERY} AS query)
     SELECT e.id, ts_rank(e.search, q.query) AS score FROM memory_entries e CROSS JOIN q
     ${where} ORDER BY score DESC, e.seq DESC LIMIT ${params.add(limit)}`,
    params.values,
  );
  return result.rows.map((row, index) => ({ id: row.id, rank: index + 1, score: row.score }));
}

/**
 * Cosine against the vectors of the same model and dimension; a zero vector scores 0. Every candidate in the scope is
 * compared (exact search), so the cost grows with the scope's vectors, not with the store's.
 */
export async function searchVector(
  db: Queryable,
  vector: EmbeddingVector,
  filter: MemoryFilter,
  limit: number,
): Promise<RankedHit[]> {
  if (limit <= 0 || vector.values.length === 0) return [];
  let sum = 0;
  for (const value of vector.values) sum += value * value;
  const norm = Math.sqrt(sum);
  const params = new Params('postgres', [Array.from(vector.values), norm]);
  const where = buildWhere(params, [
    ['v.model', '=', vector.model],
    ['v.dimensions', '=', vector.values.length],
    ...memoryFilterConditions(filter),
  ]);
  const result = await db.query<{ id: string; score: number }>(
    `SELECT e.id,
       CASE WHEN v.norm = 0 OR $2::float8 = 0 THEN 0
            ELSE (SELECT SUM(a::float8 * b::float8) FROM unnest(v.vector, $1::real[]) AS u (a, b)) / (v.norm * $2::float8) END AS score
     FROM memory_vectors v JOIN memory_entries e ON e.seq = v.entry_seq
     ${where} ORDER BY score DESC, e.seq LIMIT ${params.add(limit)}`,
    params.values,
  );
  return result.rows.map((row, index) => ({ id: row.id, rank: index + 1, score: row.score }));
}
