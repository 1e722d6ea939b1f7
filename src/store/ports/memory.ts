// The memory storage port: entries with a full-text lane and a vector lane, derived observations, the embedding cache.

export const MEMORY_TYPES = ['fact', 'preference', 'episode', 'instruction', 'observation'] as const;
/** `observation` entries are derived (consolidated) from other entries, which `derivedFrom` names. */
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const TRUST_LEVELS = ['trusted', 'untrusted'] as const;
/** Entries from tool output or webhooks are `untrusted` and labelled so when recalled. */
export type TrustLevel = (typeof TRUST_LEVELS)[number];

/** `demoted` by the lifecycle sweep when never recalled for long; demoted entries are the ones evicted. */
export type MemoryStatus = 'active' | 'demoted';

export interface MemoryEntry {
  id: string;
  tenantId: string;
  agentId: string;
  content: string;
  memoryType: MemoryType;
  trustLevel: TrustLevel;
  /** The session the entry was learned in; null for entries stored by an operator. */
  sourceSessionKey: string | null;
  /**
   * The token id owning the session the entry was learned in: whose entry it is. Null for an operator's entry (admin
   * methods, or from before owners were recorded with no owner to take from its session), which only admin callers
   * and tokens given its tenant read.
   */
  ownerId: string | null;
  createdAt: number;
  lastRecalledAt: number | null;
  recallCount: number;
  status: MemoryStatus;
  metadata: Record<string, unknown>;
  /** For observations: the ids of the entries it was derived from (empty for every other type). */
  derivedFrom: string[];
}

/** `ownerId` left out: an operator's entry (null). */
export type NewMemoryEntry = Omit<MemoryEntry, 'lastRecalledAt' | 'recallCount' | 'status' | 'ownerId'> & {
  ownerId?: string | null;
};

/** A non-admin token as a reader of memories: the entries it owns, and every entry of the tenants it is given. */
export interface MemoryReader {
  ownerId: string;
  tenantIds: readonly string[];
}

/**
 * Whose memories a call may see. Every read and delete applies it inside its query, never after. A non-admin caller
 * always passes `readableBy`; only admin calls leave it out (every owner) and may leave tenantId out (all tenants).
 */
export interface MemoryScope {
  tenantId?: string;
  agentId?: string;
  readableBy?: MemoryReader;
}

/**
 * The owner condition a scope leaves for a store to apply, or undefined when it has none: no reader (admin), or a
 * tenant the reader is given whole. Else the reader's own entries (`tenantIds` empty when the scope names a tenant
 * the reader is not given), or, across tenants, its own plus every entry of its tenants.
 */
export function ownerCondition(scope: MemoryScope): MemoryReader | undefined {
  const reader = scope.readableBy;
  if (reader === undefined) return undefined;
  if (scope.tenantId === undefined) return reader;
  return reader.tenantIds.includes(scope.tenantId) ? undefined : { ownerId: reader.ownerId, tenantIds: [] };
}

/** Whether an entry of this tenant and owner passes the owner condition (for entries already in memory). */
export function passesOwnerCondition(
  condition: MemoryReader | undefined,
  tenantId: string,
  ownerId: string | null,
): boolean {
  return condition === undefined || ownerId === condition.ownerId || condition.tenantIds.includes(tenantId);
}

export interface MemoryFilter extends MemoryScope {
  memoryType?: MemoryType;
  trustLevel?: TrustLevel;
  status?: MemoryStatus;
}

/** A vector with the embedder that made it: entries embedded by another model (or dimension) are never compared. */
export interface EmbeddingVector {
  model: string;
  values: Float32Array;
}

/** One lane's ranking: best first, `rank` from 1, `score` the lane's own (BM25 as a positive number, cosine similarity). */
export interface RankedHit {
  id: string;
  rank: number;
  score: number;
}

export interface MemoryStats {
  totalEntries: number;
  byType: Partial<Record<MemoryType, number>>;
  untrusted: number;
  demoted: number;
  /** Entries with a vector of each embedder model. */
  vectorsByModel: Record<string, number>;
  /** Size of the store's file (SQLite) or relations (PostgreSQL) in bytes. */
  dbSizeBytes: number;
}

export interface EmbeddingCacheStats {
  entries: number;
  hits: number;
  misses: number;
  evictions: number;
  /** hits / (hits + misses); 0 before the first lookup. */
  hitRate: number;
}

export interface LifecyclePolicy {
  /** Active entries not recalled (nor created) for this long become demoted. */
  demoteAfterMs: number;
  /** Demoted entries older than this (since their last recall or creation) are evicted. */
  evictAfterMs: number;
  /**
   * At most this many demoted entries per agent are kept (counted in each tenant apart, so one tenant's entries never
   * push out another's); the least recently recalled (or, never recalled, created) are evicted first.
   */
  maxDemotedPerAgent: number;
}

export interface LifecycleOutcome {
  agentId: string;
  scanned: number;
  /** Demoted entries made active again (by a recall, see markRecalled) since the agent's previous sweep. */
  promoted: number;
  demoted: number;
  evicted: number;
}

export interface MemoryPort {
  /**
   * Stores the entry and, when given, its vector, in one transaction. Rejects a duplicate id, and (`invalid_params`)
   * `derivedFrom` on a type other than `observation` or naming an entry that is not of the same tenant, agent and owner.
   */
  insert(entry: NewMemoryEntry, vector?: EmbeddingVector): Promise<MemoryEntry>;
  get(id: string, scope: MemoryScope): Promise<MemoryEntry | undefined>;
  /** The entries of these ids within the scope, in the order of `ids`; unknown or out-of-scope ids are left out. */
  getMany(ids: readonly string[], scope: MemoryScope): Promise<MemoryEntry[]>;
  /** Full-text (BM25) ranking of the query's words; [] for a query with no searchable word. */
  searchLexical(query: string, filter: MemoryFilter, limit: number, signal?: AbortSignal): Promise<RankedHit[]>;
  /** Cosine ranking against entries embedded by `vector.model` only. */
  searchVector(
    vector: EmbeddingVector,
    filter: MemoryFilter,
    limit: number,
    signal?: AbortSignal,
  ): Promise<RankedHit[]>;
  /** Entries with no vector of `model` yet, oldest first (lazy re-embedding after an embedder change). */
  withoutVector(model: string, limit: number): Promise<Pick<MemoryEntry, 'id' | 'content'>[]>;
  /** Replaces the entry's vector; a vector of another model or dimension is dropped. No effect on an unknown id. */
  setVector(id: string, vector: EmbeddingVector): Promise<void>;
  /**
   * Adds one to recallCount and sets lastRecalledAt; a demoted entry recalled becomes active again, and is counted in
   * its agent's next sweep as `promoted`.
   */
  markRecalled(ids: readonly string[], at: number): Promise<void>;
  /**
   * Demotes the active entries among `ids` (recalled into a turn whose outcome failed or was corrected); resolves to
   * how many it demoted. A later sweep treats them like any demoted entry: evicted with age or the cap, or made
   * active again while still recalled.
   */
  demote(ids: readonly string[], at: number): Promise<number>;
  /** Newest first. */
  browse(
    filter: MemoryFilter,
    page: { offset: number; limit: number },
  ): Promise<{ entries: MemoryEntry[]; total: number }>;
  /** False when no entry of that id is in the scope. */
  delete(id: string, scope: MemoryScope): Promise<boolean>;
  /**
   * session.reset_conversation rule 4: deletes the session's entries in the scope and unlinks them from derived
   * observations (an observation left with no source is deleted); with `purgeDerived`, every observation in the
   * scope goes too. Resolves to the number of entries deleted.
   */
  deleteBySource(sessionKey: string, scope: MemoryScope, options: { purgeDerived: boolean }): Promise<number>;
  /** Deletes every entry in the scope (all when empty); resolves to how many. */
  flush(scope: MemoryScope): Promise<number>;
  stats(scope: MemoryScope): Promise<MemoryStats>;
  /** Whether the scope holds any entry, so a turn can skip recall (and its embedding) where there is nothing to find. */
  hasEntries(scope: MemoryScope): Promise<boolean>;
  /** Ids of agents that have entries (the lifecycle sweep's work list). */
  agentsWithEntries(): Promise<string[]>;
  /**
   * Demotes, promotes and evicts one agent's entries (every tenant's) per the policy, in one transaction. An entry
   * demoted and already past `evictAfterMs` is evicted by the same sweep, so it is in both id lists.
   */
  sweep(
    agentId: string,
    policy: LifecyclePolicy,
    now: number,
  ): Promise<LifecycleOutcome & { evictedIds: string[]; demotedIds: string[] }>;
  /** The persistent embedding cache, keyed by model and a hash of the text. */
  cachedEmbedding(model: string, contentHash: string): Promise<Float32Array | undefined>;
  cacheEmbedding(model: string, contentHash: string, values: Float32Array): Promise<void>;
  embeddingCacheStats(): Promise<EmbeddingCacheStats>;
}
