// The rows of memory entries as both backends' hand-written memory SQL reads and writes them, and how they map to the
// MemoryPort's entries.
import {
  MEMORY_TYPES,
  TRUST_LEVELS,
  type LifecycleOutcome,
  type MemoryEntry,
  type MemoryStats,
  type MemoryType,
  type NewMemoryEntry,
  type TrustLevel,
} from '../index.js';
import { parseJsonObject } from './session-rows.js';

export interface MemoryRow {
  seq: number;
  id: string;
  tenant_id: string;
  agent_id: string;
  content: string;
  memory_type: string;
  trust_level: string;
  source_session_key: string | null;
  owner_id: string | null;
  created_at: number;
  last_recalled_at: number | null;
  recall_count: number;
  status: string;
  metadata: string;
}

export const MEMORY_COLUMNS =
  'e.seq, e.id, e.tenant_id, e.agent_id, e.content, e.memory_type, e.trust_level, e.source_session_key, e.owner_id, e.created_at, ' +
  'e.last_recalled_at, e.recall_count, e.status, e.metadata';

/** The columns an insert writes, in this order, and their values for the entry. */
export const MEMORY_INSERT_COLUMNS =
  'id, tenant_id, agent_id, content, memory_type, trust_level, source_session_key, owner_id, created_at, metadata';

export type MemoryInsertValues = [
  string,
  string,
  string,
  string,
  string,
  string,
  string | null,
  string | null,
  number,
  string,
];

export const memoryInsertValues = (entry: NewMemoryEntry): MemoryInsertValues => [
  entry.id,
  entry.tenantId,
  entry.agentId,
  entry.content,
  entry.memoryType,
  entry.trustLevel,
  entry.sourceSessionKey,
  entry.ownerId ?? null,
  entry.createdAt,
  JSON.stringify(entry.metadata),
];

/** The entry as an insert stored it: active, never recalled, derived from its distinct sources. */
export const insertedEntry = (entry: NewMemoryEntry, derivedFrom: string[]): MemoryEntry => ({
  ...entry,
  ownerId: entry.ownerId ?? null,
  derivedFrom,
  lastRecalledAt: null,
  recallCount: 0,
  status: 'active',
});

export const isMemoryType = (value: string): value is MemoryType => (MEMORY_TYPES as readonly string[]).includes(value);
const isTrustLevel = (value: string): value is TrustLevel => (TRUST_LEVELS as readonly string[]).includes(value);

/** Rows are written only by the port; an unknown value (a hand-edited row) reads as the safest one. */
function toEntry(row: MemoryRow, derivedFrom: string[]): MemoryEntry {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    agentId: row.agent_id,
    content: row.content,
    memoryType: isMemoryType(row.memory_type) ? row.memory_type : 'fact',
    trustLevel: isTrustLevel(row.trust_level) ? row.trust_level : 'untrusted',
    sourceSessionKey: row.source_session_key,
    ownerId: row.owner_id,
    createdAt: row.created_at,
    lastRecalledAt: row.last_recalled_at,
    recallCount: row.recall_count,
    status: row.status === 'demoted' ? 'demoted' : 'active',
    metadata: parseJsonObject(row.metadata),
    derivedFrom,
  };
}

/** The entries in the order of `ids` (an id asked twice answered twice); an id with no entry is left out. */
export function inIdOrder(ids: readonly string[], entries: readonly MemoryEntry[]): MemoryEntry[] {
  const found = new Map(entries.map((entry) => [entry.id, entry]));
  return ids.flatMap((id) => found.get(id) ?? []);
}

/** The seqs of the observations among the rows, whose source ids `toEntries` needs. */
export const observationSeqs = (rows: readonly MemoryRow[]): number[] =>
  rows.filter((row) => row.memory_type === 'observation').map((row) => row.seq);

/** The rows as entries, given each observation's links (ordered by observation, then position) with the source ids. */
export function toEntries(
  rows: readonly MemoryRow[],
  links: Iterable<{ observation: number; source: string }>,
): MemoryEntry[] {
  const sources = new Map<number, string[]>();
  for (const { observation, source } of links) {
    const list = sources.get(observation);
    if (list === undefined) sources.set(observation, [source]);
    else list.push(source);
  }
  return rows.map((row) => toEntry(row, sources.get(row.seq) ?? []));
}

/** The SELECT of the links of observations, up to its WHERE on `l.observation_seq` (each backend binds the list). */
export const LINKS_SELECT =
  'SELECT l.observation_seq AS observation, s.id AS source FROM memory_links l JOIN memory_entries s ON s.seq = l.source_seq';
export const LINKS_ORDER = 'ORDER BY l.observation_seq, l.position';

/** When an entry was last of use: its last recall, or its creation when never recalled. */
export const LAST_USED = 'COALESCE(last_recalled_at, created_at)';

export interface TypeCountRow {
  memory_type: string;
  entries: number;
  untrusted: number;
  demoted: number;
}

/** The MemoryPort's stats from the scope's counts per type and its vectors per model. */
export function toMemoryStats(
  byTypeRows: readonly TypeCountRow[],
  byModelRows: readonly { model: string; vectors: number }[],
  dbSizeBytes: number,
): MemoryStats {
  const byType: Partial<Record<MemoryType, number>> = {};
  let totalEntries = 0;
  let untrusted = 0;
  let demoted = 0;
  for (const row of byTypeRows) {
    if (isMemoryType(row.memory_type)) byType[row.memory_type] = row.entries;
    totalEntries += row.entries;
    untrusted += row.untrusted;
    demoted += row.demoted;
  }
  const vectorsByModel: Record<string, number> = {};
  for (const row of byModelRows) vectorsByModel[row.model] = row.vectors;
  return { totalEntries, byType, untrusted, demoted, vectorsByModel, dbSizeBytes };
}

export type SweepOutcome = LifecycleOutcome & { evictedIds: string[]; demotedIds: string[] };

/** A sweep's outcome from the entries it demoted and the ones it evicted (aged out, then past the cap). */
export function sweepOutcome(
  agentId: string,
  counts: { scanned: number; promoted: number },
  demoting: readonly { id: string }[],
  evicted: readonly { id: string }[],
): SweepOutcome {
  const evictedIds = evicted.map((row) => row.id);
  const demotedIds = demoting.map((row) => row.id);
  return { agentId, ...counts, demoted: demotedIds.length, evicted: evictedIds.length, evictedIds, demotedIds };
}
