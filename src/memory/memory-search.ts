// Hybrid search: lexical (BM25) and vector (cosine) lanes over-fetched inside the store, fused by reciprocal rank.
import type { MemoryEntry, MemoryFilter, MemoryPort } from '../store/index.js';
import { isZeroVector, type MemoryEmbedder } from './memory-embedder.js';
import { fuseRankings, type LaneHit } from './rank-fusion.js';

export const MEMORY_LANES = ['lexical', 'vector'] as const;
export type MemoryLane = (typeof MEMORY_LANES)[number];

/** Each lane returns at least this many candidates (mem0 over-fetches ≥ 60 before fusing). */
export const MIN_LANE_CANDIDATES = 60;
/** …or this many times the results asked for, whichever is more. */
export const LANE_OVERFETCH_FACTOR = 4;

export interface MemorySearchRequest {
  query: string;
  /** Tenant, agent, type and trust filters: applied inside each lane's query and again on the fetched entries. */
  filter: MemoryFilter;
  limit: number;
  /** Both lanes by default; one lane for comparisons (the retrieval-quality test). */
  lanes?: readonly MemoryLane[];
  signal?: AbortSignal;
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

export function createMemorySearch({ port, embedder }: MemorySearchDeps): MemorySearch {
  return async function searchMemory({ query, filter, limit, lanes = MEMORY_LANES, signal = NEVER }) {
    const candidates = Math.max(MIN_LANE_CANDIDATES, LANE_OVERFETCH_FACTOR * limit);
    const rankings: LaneHit[][] = [];
    const ran: MemoryLane[] = [];
    const [lexical, vector] = await Promise.all([
      lanes.includes('lexical') ? port.searchLexical(query, filter, candidates, signal) : undefined,
      lanes.includes('vector') ? vectorLane(query, filter, candidates, signal) : undefined,
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
    const scope = { ...(filter.tenantId === undefined ? {} : { tenantId: filter.tenantId }), ...(filter.agentId === undefined ? {} : { agentId: filter.agentId }) };
    const entries = await port.getMany(fused.map((hit) => hit.id), scope);
    const byId = new Map(entries.map((entry) => [entry.id, entry]));
    const hits: ScoredEntry[] = [];
    for (const { id, score } of fused) {
      const entry = byId.get(id);
      if (entry !== undefined) hits.push({ entry, score });
    }
    return { hits, lanes: ran };
  };

  async function vectorLane(query: string, filter: MemoryFilter, candidates: number, signal: AbortSignal) {
    const [vector] = await embedder.embed([query], signal);
    if (vector === undefined || isZeroVector(vector.values)) return undefined;
    return port.searchVector(vector, filter, candidates, signal);
  }
}
