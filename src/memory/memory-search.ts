// Hybrid search: lexical (BM25) and vector (cosine) lanes over-fetched inside the store, fused by reciprocal rank.
import type { MemoryEntry, MemoryFilter, MemoryPort, MemoryScope, RankedHit } from '../store/index.js';
import { isZeroVector, type EmbedPayer, type MemoryEmbedder } from './memory-embedder.js';
import { fuseRankings, type LaneHit } from './rank-fusion.js';

export const MEMORY_LANES = ['lexical', 'vector'] as const;
export type MemoryLane = (typeof MEMORY_LANES)[number];

/** Each lane returns at least this many candidates (mem0 over-fetches ≥ 60 before fusing). */
export const MIN_LANE_CANDIDATES = 60;
/** …or this many times the results asked for, whichever is more. */
export const LANE_OVERFETCH_FACTOR = 4;

export interface MemorySearchRequest {
  query: string;
  /** Tenant, agent, owner, type and trust filters: applied inside each lane's query and again on the fetched entries. */
  filter: MemoryFilter;
  limit: number;
  /** Both lanes by default; one lane for comparisons (the retrieval-quality test). */
  lanes?: readonly MemoryLane[];
  signal?: AbortSignal;
  /** Whose budgets the query's embedding counts against: the turn's or the caller's. */
  payer?: EmbedPayer;
}

export interface ScoredEntry {
  entry: MemoryEntry;
  /** Fused reciprocal-rank score, 0 to 1 (1: first in every lane searched). */
  score: number;
}

export interface MemorySearchResult {
  hits: ScoredEntry[];
  /** The lanes that ran (the vector lane is skipped for a query with no words to embed). */
  lanes: MemoryLane[];
}

export interface MemorySearchDeps {
  port: Pick<MemoryPort, 'searchLexical' | 'searchVector' | 'getMany'>;
  embedder: MemoryEmbedder;
}

export type MemorySearch = (request: MemorySearchRequest) => Promise<MemorySearchResult>;

const NEVER = new AbortController().signal;

interface VectorLaneResult {
  /** Undefined when the lane did not run (the query has no words to embed). */
  vector?: RankedHit[];
  /** Entries already fetched, of the lane's best. */
  early: MemoryEntry[];
}

const NO_VECTOR_LANE: VectorLaneResult = { early: [] };

export function createMemorySearch({ port, embedder }: MemorySearchDeps): MemorySearch {
  return async function searchMemory({ query, filter, limit, lanes = MEMORY_LANES, signal = NEVER, payer }) {
    const candidates = Math.max(MIN_LANE_CANDIDATES, LANE_OVERFETCH_FACTOR * limit);
    const scope: MemoryScope = {
      ...(filter.tenantId === undefined ? {} : { tenantId: filter.tenantId }),
      ...(filter.agentId === undefined ? {} : { agentId: filter.agentId }),
      ...(filter.readableBy === undefined ? {} : { readableBy: filter.readableBy }),
    };
    const rankings: LaneHit[][] = [];
    const ran: MemoryLane[] = [];
    const [lexical, { vector, early }] = await Promise.all([
      lanes.includes('lexical') ? port.searchLexical(query, filter, candidates, signal) : undefined,
      lanes.includes('vector')
        ? vectorLane(query, filter, candidates, signal, payer, lanes.includes('lexical') ? { limit, scope } : undefined)
        : NO_VECTOR_LANE,
    ]);
    if (lexical !== undefined) {
      rankings.push(lexical);
      ran.push('lexical');
    }
    if (vector !== undefined) {
      rankings.push(vector);
      ran.push('vector');
    }
    const fused = fuseRankings(rankings, limit);
    if (fused.length === 0) return { hits: [], lanes: ran };
    const byId = new Map(early.map((entry) => [entry.id, entry]));
    const missing = fused.filter((hit) => !byId.has(hit.id)).map((hit) => hit.id);
    if (missing.length > 0) for (const entry of await port.getMany(missing, scope)) byId.set(entry.id, entry);
    const hits: ScoredEntry[] = [];
    for (const { id, score } of fused) {
      const entry = byId.get(id);
      if (entry !== undefined) hits.push({ entry, score });
    }
    return { hits, lanes: ran };
  };

  /**
   * The vector lane's ranking and, when `fetch` is given (the lexical lane runs too), the entries of its best `limit`:
   * fetched while the lexical lane may still run (on a reader thread, or a database server), as most of the fused
   * results are among them; only the others are fetched once the lanes are fused.
   */
  async function vectorLane(
    query: string,
    filter: MemoryFilter,
    candidates: number,
    signal: AbortSignal,
    payer: EmbedPayer | undefined,
    fetch?: { limit: number; scope: MemoryScope },
  ): Promise<VectorLaneResult> {
    const [embedded] = await embedder.embed([query], signal, payer);
    if (embedded === undefined || isZeroVector(embedded.values)) return NO_VECTOR_LANE;
    const vector = await port.searchVector(embedded, filter, candidates, signal);
    const best = vector.slice(0, fetch?.limit ?? 0).map((hit) => hit.id);
    return { vector, early: fetch === undefined || best.length === 0 ? [] : await port.getMany(best, fetch.scope) };
  }
}
