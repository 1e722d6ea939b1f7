// The scope and filter conditions every SQLite memory query applies, and the entries read from their rows.
import { ownerCondition, type MemoryEntry, type MemoryFilter } from '../ports/index.js';
import type { SqliteDatabase } from './database.js';
import { LINKS_ORDER, LINKS_SELECT, observationSeqs, toEntries, type MemoryRow } from '../shared/index.js';
import { buildWhere, inList, type Condition, type WhereClause } from './where.js';

/** SQLite's default limit on bound parameters is far higher; lists are bound in chunks of this many. */
const MAX_BOUND_IDS = 500;

/** The owner condition of the scope (ownerCondition) on the entry columns; undefined when it has none. */
function ownerFragment(filter: MemoryFilter, prefix: string): Condition {
  const condition = ownerCondition(filter);
  if (condition === undefined) return undefined;
  if (condition.tenantIds.length === 0) return [`${prefix}owner_id`, '=', condition.ownerId];
  const tenants = inList(`${prefix}tenant_id`, condition.tenantIds);
  return { sql: `${prefix}owner_id = ? OR ${tenants.sql}`, values: [condition.ownerId, ...tenants.values] };
}

/** The scope and filter as conditions on the entry columns (`prefix` is the table alias, trusted). */
function filterConditions(filter: MemoryFilter, prefix = 'e.'): Condition[] {
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
  type Link = { observation: number; source: string };
  const statements = new Map<number, ReturnType<typeof db.prepare<number[], Link>>>();
  const linksOf = (seqs: number[]) => {
    let statement = statements.get(seqs.length);
    if (statement === undefined) {
      statement = db.prepare<number[], Link>(
        `${LINKS_SELECT} WHERE ${inList('l.observation_seq', seqs).sql} ${LINKS_ORDER}`,
      );
      statements.set(seqs.length, statement);
    }
    return statement.all(...seqs);
  };
  return (rows) => toEntries(rows, chunks(observationSeqs(rows)).flatMap(linksOf));
}
