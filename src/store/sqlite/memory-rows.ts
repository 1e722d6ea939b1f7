// SQLite rows of memory entries, how they map to MemoryEntry, and the scope and filter conditions every query applies.
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
import type { SqliteDatabase } from './database.js';
import { parseJsonObject } from '../shared/index.js';
import { buildWhere, inList, type Condition, type WhereClause } from './where.js';

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

/** SQLite's default limit on bound parameters is far higher; lists are bound in chunks of this many. */
export const MAX_BOUND_IDS = 500;

export function isMemoryType(value: string): value is MemoryType {
  return (MEMORY_TYPES as readonly string[]).includes(value);
}

function isTrustLevel(value: string): value is TrustLevel {
  return (TRUST_LEVELS as readonly string[]).includes(value);
}

/** Rows are written only by this port; an unknown value (a hand-edited file) reads as the safest one. */
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

/** The owner condition of the scope (ownerCondition) on the entry columns; undefined when it has none. */
function ownerFragment(filter: MemoryFilter, prefix: string): Condition {
  const condition = ownerCondition(filter);
  if (condition === undefined) return undefined;
  if (condition.tenantIds.length === 0) return [`${prefix}owner_id`, '=', condition.ownerId];
  const tenants = inList(`${prefix}tenant_id`, condition.tenantIds);
  return { sql: `${prefix}owner_id = ? OR ${tenants.sql}`, values: [condition.ownerId, ...tenants.values] };
}

/** The scope and filter as conditions on the entry columns (`prefix` is the table alias, trusted). */
export function filterConditions(filter: MemoryFilter, prefix = 'e.'): Condition[] {
  return [
    [`${prefix}tenant_id`, '=', filter.tenantId],
    [`${prefix}agent_id`, '=', filter.agentId],
    ownerFragment(filter, prefix),
    [`${prefix}memory_type`, '=', filter.memoryType],
    [`${prefix}trust_level`, '=', filter.trustLevel],
    [`${prefix}status`, '=', filter.status],
  ];
}

export function filterWhere(filter: MemoryFilter, extra: readonly Condition[] = []): WhereClause {
  return buildWhere([...filterConditions(filter), ...extra]);
}

/**
 * Entries named by id or seq, kept to the filter: its columns are written `+e.column`, which SQLite reads as "use no
 * index here", so it looks the named rows up rather than walking the scope's index (as long as the scope).
 */
export function keyedFilterWhere(key: Condition, filter: MemoryFilter, extra: readonly Condition[] = []): WhereClause {
  return buildWhere([key, ...filterConditions(filter, '+e.'), ...extra]);
}

export function chunks<T>(items: readonly T[], size = MAX_BOUND_IDS): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/** Maps rows to entries, reading the observations' source ids (in the order they were given) in one query per chunk. */
export function createEntryReader(db: SqliteDatabase): (rows: readonly MemoryRow[]) => MemoryEntry[] {
  const sourcesSql = (count: number) =>
    `SELECT l.observation_seq AS observation, s.id AS source FROM memory_links l JOIN memory_entries s ON s.seq = l.source_seq
     WHERE ${inList('l.observation_seq', new Array<number>(count).fill(0)).sql} ORDER BY l.observation_seq, l.position`;
  const statements = new Map<
    number,
    ReturnType<typeof db.prepare<number[], { observation: number; source: string }>>
  >();
  const sourcesOf = (seqs: number[]) => {
    let statement = statements.get(seqs.length);
    if (statement === undefined) {
      statement = db.prepare<number[], { observation: number; source: string }>(sourcesSql(seqs.length));
      statements.set(seqs.length, statement);
    }
    return statement.all(...seqs);
  };
  return (rows) => {
    const observations = rows.filter((row) => row.memory_type === 'observation').map((row) => row.seq);
    const sources = new Map<number, string[]>();
    for (const chunk of chunks(observations)) {
      for (const { observation, source } of sourcesOf(chunk)) {
        const list = sources.get(observation);
        if (list === undefined) sources.set(observation, [source]);
        else list.push(source);
      }
    }
    return rows.map((row) => toEntry(row, sources.get(row.seq) ?? []));
  };
}
