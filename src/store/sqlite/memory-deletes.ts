// Deleting memory entries on SQLite: one entry, a session's entries with session.reset_conversation's unlink rules, a flush.
import type { MemoryScope } from '../index.js';
import type { SqliteDatabase } from './database.js';
import { filterWhere, inList, keyedFilterWhere, type WhereClause } from './memory-rows.js';
import { chunks, type Condition } from '../shared/index.js';
import type { VectorLane, VectorStore } from './vector-sketch/index.js';

export interface MemoryDeletes {
  delete(id: string, scope: MemoryScope): boolean;
  deleteBySource(sessionKey: string, scope: MemoryScope, purgeDerived: boolean): number;
  flush(scope: MemoryScope): number;
  /** Deletes these entries (their links, full-text rows and vectors go with them); call inside a transaction. */
  deleteSeqs(seqs: readonly number[]): number;
}

export function createMemoryDeletes(db: SqliteDatabase, vectors: VectorStore, lane: VectorLane): MemoryDeletes {
  const numbers = (sql: string, where: WhereClause) =>
    db
      .prepare<unknown[], number>(sql)
      .pluck()
      .all(...where.values);
  const seqsOf = (where: WhereClause) => numbers(`SELECT e.seq FROM memory_entries e ${where.sql}`, where);
  const seqsWhere = (scope: MemoryScope, extra: readonly Condition[]) => seqsOf(filterWhere(scope, extra));

  function deleteSeqs(seqs: readonly number[]): number {
    let deleted = 0;
    for (const chunk of chunks(seqs)) {
      lane.removed(vectors.vectorsOf(chunk));
      const where = inList('seq', chunk);
      deleted += db.prepare(`DELETE FROM memory_entries WHERE ${where.sql}`).run(...where.values).changes;
    }
    return deleted;
  }

  const deleteBySource = db.transaction((sessionKey: string, scope: MemoryScope, purgeDerived: boolean): number => {
    const sources = seqsWhere(scope, [['e.source_session_key', '=', sessionKey]]);
    // The observations these entries back, read before the links go with them.
    const linked = new Set<number>();
    for (const chunk of chunks(sources)) {
      const where = inList('source_seq', chunk);
      for (const seq of numbers(`SELECT observation_seq FROM memory_links WHERE ${where.sql}`, where)) linked.add(seq);
    }
    let deleted = deleteSeqs(sources);
    if (purgeDerived) return deleted + deleteSeqs(seqsWhere(scope, [['e.memory_type', '=', 'observation']]));
    const orphans: number[] = [];
    for (const chunk of chunks([...linked])) {
      orphans.push(
        ...seqsOf(
          keyedFilterWhere((params) => params.anyOf('e.seq', chunk), scope, [
            () => 'NOT EXISTS (SELECT 1 FROM memory_links l WHERE l.observation_seq = e.seq)',
          ]),
        ),
      );
    }
    deleted += deleteSeqs(orphans);
    return deleted;
  });

  const flush = db.transaction((scope: MemoryScope): number => {
    if (scope.tenantId !== undefined || scope.agentId !== undefined || scope.readableBy !== undefined)
      return deleteSeqs(seqsWhere(scope, []));
    // Everything: each lane empties an index at once rather than one entry at a time.
    for (const index of vectors.allIndexes()) lane.cleared(index);
    return db.prepare('DELETE FROM memory_entries').run().changes;
  });

  return {
    delete(id, scope) {
      return db.transaction(() => deleteSeqs(seqsOf(keyedFilterWhere(['e.id', '=', id], scope))) > 0).immediate();
    },
    deleteBySource: (sessionKey, scope, purgeDerived) => deleteBySource.immediate(sessionKey, scope, purgeDerived),
    flush: (scope) => flush.immediate(scope),
    deleteSeqs,
  };
}
