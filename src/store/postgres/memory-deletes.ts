// Deleting memory entries on PostgreSQL: one entry, a session's entries with session.reset_conversation's unlink rules, a flush.
import type { MemoryScope } from '../index.js';
import { transaction, type PgPool, type Queryable } from './pool.js';
import { buildWhere, memoryFilterConditions, Params, type Condition } from '../shared/index.js';

/** Seqs of the scope's entries that also meet `extra`. */
async function seqsWhere(db: Queryable, scope: MemoryScope, extra: readonly Condition[]): Promise<number[]> {
  const params = new Params('postgres');
  const where = buildWhere(params, [...memoryFilterConditions(scope), ...extra]);
  return (await db.query<{ seq: number }>(`SELECT e.seq FROM memory_entries e ${where}`, params.values)).rows.map(
    (row) => row.seq,
  );
}

/** Deletes these entries; their links and vectors go with them (ON DELETE CASCADE). */
export async function deleteSeqs(db: Queryable, seqs: readonly number[]): Promise<number> {
  if (seqs.length === 0) return 0;
  return (await db.query('DELETE FROM memory_entries WHERE seq = ANY($1::bigint[])', [seqs])).rowCount ?? 0;
}

export function createMemoryDeletes(pool: PgPool) {
  return {
    delete: (id: string, scope: MemoryScope): Promise<boolean> =>
      transaction(pool, async (client) => {
        return (await deleteSeqs(client, await seqsWhere(client, scope, [['e.id', '=', id]]))) > 0;
      }),
    deleteBySource: (sessionKey: string, scope: MemoryScope, purgeDerived: boolean): Promise<number> =>
      transaction(pool, async (client) => {
        const sources = await seqsWhere(client, scope, [['e.source_session_key', '=', sessionKey]]);
        // The observations these entries back, read before the links go with them.
        const linked = (
          await client.query<{ seq: number }>(
            'SELECT DISTINCT observation_seq AS seq FROM memory_links WHERE source_seq = ANY($1::bigint[])',
            [sources],
          )
        ).rows.map((row) => row.seq);
        let deleted = await deleteSeqs(client, sources);
        if (purgeDerived)
          return (
            deleted +
            (await deleteSeqs(client, await seqsWhere(client, scope, [['e.memory_type', '=', 'observation']])))
          );
        const orphans = await seqsWhere(client, scope, [
          (params) => params.anyOf('e.seq', linked, 'bigint'),
          () => 'NOT EXISTS (SELECT 1 FROM memory_links l WHERE l.observation_seq = e.seq)',
        ]);
        deleted += await deleteSeqs(client, orphans);
        return deleted;
      }),
    async flush(scope: MemoryScope): Promise<number> {
      const params = new Params('postgres');
      const where = buildWhere(params, memoryFilterConditions(scope));
      return (await pool.query(`DELETE FROM memory_entries e ${where}`, params.values)).rowCount ?? 0;
    },
  };
}
