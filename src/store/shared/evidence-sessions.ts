// The EvidencePort's per-session reads on both dialects: a session's turns, trajectory and spawn tree, and lookups by
// trace or root run.
import type { Compilable } from 'kysely';
import type { EvidencePort } from '../ports/evidence.js';
import { INDEX_COLUMNS, RUN_COLUMNS, toIndexRow, toTrajectory, TRAJECTORY_COLUMNS } from './evidence-rows.js';
import { first, type StoreDb } from './store-db.js';

type SessionReads = Pick<
  EvidencePort,
  | 'trajectoryOf'
  | 'trajectoryCountOf'
  | 'trajectoryOfKind'
  | 'sessionKeyOfTrace'
  | 'sessionKeyOfRoot'
  | 'sessionIndexOf'
  | 'rootRunOfSession'
  | 'runsOfRoot'
>;

export function createSessionReads(store: StoreDb): SessionReads {
  const { db } = store;
  const trajectory = (sessionKey: string) =>
    db.selectFrom('trajectory as t').select(TRAJECTORY_COLUMNS).where('t.session_key', '=', sessionKey);
  const keyOf = async (query: Compilable<{ key: string }>) => (await first(store, query))?.key;
  return {
    async trajectoryOf(sessionKey, options, signal) {
      signal?.throwIfAborted();
      const newest = options?.newest;
      if (newest === undefined)
        return (await store.rows(trajectory(sessionKey).orderBy('t.seq').orderBy('t.id'))).map(toTrajectory);
      const rows = await store.rows(
        trajectory(sessionKey).orderBy('t.seq', 'desc').orderBy('t.id', 'desc').limit(newest),
      );
      return rows.reverse().map(toTrajectory);
    },
    async trajectoryCountOf(sessionKey, signal) {
      signal?.throwIfAborted();
      const query = db
        .selectFrom('trajectory')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('session_key', '=', sessionKey);
      return (await first(store, query))?.n ?? 0;
    },
    async trajectoryOfKind({ kind, agentId, newest }, signal) {
      signal?.throwIfAborted();
      let query = db
        .selectFrom('trajectory as t')
        .innerJoin('session_index as s', 's.trace_id', 't.trace_id')
        .select([...TRAJECTORY_COLUMNS, 's.agent_id as agentId'])
        .where('t.kind', '=', kind);
      if (agentId !== undefined) query = query.where('s.agent_id', '=', agentId);
      const rows = await store.rows(query.orderBy('t.id', 'desc').limit(newest));
      return rows.reverse().map(toTrajectory);
    },
    async sessionKeyOfTrace(traceId, signal) {
      signal?.throwIfAborted();
      return (
        (await keyOf(db.selectFrom('session_index').select('session_key as key').where('trace_id', '=', traceId))) ??
        (await keyOf(db.selectFrom('trajectory').select('session_key as key').where('trace_id', '=', traceId).limit(1)))
      );
    },
    async sessionKeyOfRoot(rootRunId, signal) {
      signal?.throwIfAborted();
      const indexed = db
        .selectFrom('session_index')
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
        .selectFrom('session_index')
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
