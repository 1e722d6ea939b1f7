// PostgreSQL rows of memory entries, how they map to MemoryEntry, and the scope and filter conditions every query applies.
import {
  MEMORY_TYPES,
  ownerCondition,
  TRUST_LEVELS,
  type MemoryEntry,
  type MemoryFilter,
  type MemoryStatus,
  type MemoryType,
  type TrustLevel,
} from '../ports/index.js';
import type { Queryable } from './pool.js';
import { parseJsonObject } from '../shared/index.js';
import type { Condition, Params } from './where.js';

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

export const isMemoryType = (value: string): value is MemoryType => (MEMORY_TYPES as readonly string[]).includes(value);
const isTrustLevel = (value: string): value is TrustLevel => (TRUST_LEVELS as readonly string[]).includes(value);

/** Rows are written only by this port; an unknown value (a hand-edited row) reads as the safest one. */
function toEntry(row: MemoryRow, derivedFrom: string[]): MemoryEntry {
  const status: MemoryStatus = row.status === 'demoted' ? 'demoted' : 'active';
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
    status,
    metadata: parseJsonObject(row.metadata),
    derivedFrom,
  };
}

/** The owner condition of the scope (ownerCondition) on the entry columns of `e`; undefined when it has none. */
function ownerFragment(filter: MemoryFilter, params: Params): Condition {
  const condition = ownerCondition(filter);
  if (condition === undefined) return undefined;
  if (condition.tenantIds.length === 0) return ['e.owner_id', '=', condition.ownerId];
  return `e.owner_id = ${params.add(condition.ownerId)} OR e.tenant_id = ANY(${params.add([...condition.tenantIds])}::text[])`;
}

/** The scope and filter as conditions on the entry columns of `e`, bound with the query's `params`. */
export function filterConditions(filter: MemoryFilter, params: Params): Condition[] {
  return [
    ['e.tenant_id', '=', filter.tenantId],
    ['e.agent_id', '=', filter.agentId],
    ownerFragment(filter, params),
    ['e.memory_type', '=', filter.memoryType],
    ['e.trust_level', '=', filter.trustLevel],
    ['e.status', '=', filter.status],
  ];
}

/** Maps rows to entries, reading every observation's source ids (in the order they were given) in one query. */
export async function readEntries(db: Queryable, rows: readonly MemoryRow[]): Promise<MemoryEntry[]> {
  const observations = rows.filter((row) => row.memory_type === 'observation').map((row) => row.seq);
  const sources = new Map<number, string[]>();
  if (observations.length > 0) {
    const links = await db.query<{ observation: number; source: string }>(
      `SELECT l.observation_seq AS observation, s.id AS source FROM memory_links l JOIN memory_entries s ON s.seq = l.source_seq
       WHERE l.observation_seq = ANY($1::bigint[]) ORDER BY l.observation_seq, l.position`,
      [observations],
    );
    for (const { observation, source } of links.rows) {
      const list = sources.get(observation);
      if (list === undefined) sources.set(observation, [source]);
      else list.push(source);
    }
  }
  return rows.map((row) => toEntry(row, sources.get(row.seq) ?? []));
}
