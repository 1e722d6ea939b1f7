// The entries read from PostgreSQL memory rows, each observation's source ids with them.
import type { MemoryEntry } from '../ports/index.js';
import type { Queryable } from './pool.js';
import { LINKS_ORDER, LINKS_SELECT, observationSeqs, toEntries, type MemoryRow } from '../shared/index.js';

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
