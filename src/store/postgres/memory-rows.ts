// The scope and filter conditions every PostgreSQL memory query applies, and the entries read from their rows.
import { ownerCondition, type MemoryEntry, type MemoryFilter } from '../ports/index.js';
import type { Queryable } from './pool.js';
import { LINKS_ORDER, LINKS_SELECT, observationSeqs, toEntries, type MemoryRow } from '../shared/index.js';
import type { Condition, Params } from './where.js';

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
  const observations = observationSeqs(rows);
  if (observations.length === 0) return toEntries(rows, []);
  const links = await db.query<{ observation: number; source: string }>(
    `${LINKS_SELECT} WHERE l.observation_seq = ANY($1::bigint[]) ${LINKS_ORDER}`,
    [observations],
  );
  return toEntries(rows, links.rows);
}
