// The EvidencePort's per-session reads on both dialects: a session's turns and spawn tree, and lookups by trace or root
// run (its trajectory reads are in turn-records.ts).
import type { Compilable } from 'kysely';
import type { EvidencePort } from '../ports/evidence.js';
import { INDEX_COLUMNS, RUN_COLUMNS, toIndexRow } from './evidence-rows.js';
import { first, type StoreDb } from './store-db.js';

type SessionReads = Pick<
  EvidencePort,
  'sessionKeyOfTrace' | 'sessionKeyOfRoot' | 'sessionIndexOf' | 'rootRunOfSession' | 'runsOfRoot'
>;

export function createSessionReads(store: StoreDb): SessionReads {
  const { db } = store;
  const keyOf = async (query: Compilable<{ key: string }>) => (await first(store, query))?.key;
  return {
    async sessionKeyOfTrace(traceId, signal) {
      signal?.throwIfAborted();
      return (
        (await keyOf(db.selectFrom('turns').select('session_key as key').where('trace_id', '=', traceId))) ??
        (await keyOf(
          db.selectFrom('loose_records').select('session_key as key').where('trace_id', '=', traceId).limit(1),
        ))
      );
    },
    async sessionKeyOfRoot(rootRunId, signal) {
      signal?.throwIfAborted();
      const indexed = db
        .selectFrom('turns')
        .select('session_key as key')
        .where('root_run_id', '=', rootRunId)
        .orderBy('started_at')
        .orderBy('trace_id')
        .limit(1);
      return (
        (await keyOf(indexed)) ??
        (await keyOf(db.selectFrom('runs').select('session_key as key').where('run_id', '=', rootRunId)))
      );
    },
    async sessionIndexOf(sessionKey, signal) {
      signal?.throwIfAborted();
      const query = db
        .selectFrom('turns')
        .select(INDEX_COLUMNS)
        .where('session_key', '=', sessionKey)
        .orderBy('started_at')
        .orderBy('trace_id');
      return (await store.rows(query)).map(toIndexRow);
    },
    async rootRunOfSession(sessionKey, signal) {
      signal?.throwIfAborted();
      const query = db
        .selectFrom('runs')
        .select('root_run_id as root')
        .where((eb) => eb.or([eb('session_key', '=', sessionKey), eb('parent_key', '=', sessionKey)]))
        .orderBy('started_at')
        .orderBy('run_id')
        .limit(1);
      return (await first(store, query))?.root;
    },
    async runsOfRoot(rootRunId, limit, signal) {
      signal?.throwIfAborted();
      return store.rows(
        db
          .selectFrom('runs')
          .select(RUN_COLUMNS)
          .where('root_run_id', '=', rootRunId)
          .orderBy('started_at')
          .orderBy('run_id')
          .limit(limit),
      );
    },
  };
}
