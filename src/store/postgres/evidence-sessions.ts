// The per-session reads of the PostgreSQL EvidencePort: a session's turns, trajectory and spawn tree, and lookups by trace or root run.
import type { EvidencePort, EvidenceRun, SessionIndexRow } from '../ports/evidence.js';
import { INDEX_SELECT, RUN_COLUMNS, toTrajectory, TRAJECTORY_COLUMNS, type TrajectoryRaw } from './evidence-rows.js';
import type { Queryable } from './pool.js';
import { buildWhere, Params } from './where.js';

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

export function createPostgresSessionReads(db: Queryable): SessionReads {
  const keyOf = async (sql: string, values: readonly (string | number)[]) =>
    (await db.query<{ key: string }>(sql, [...values])).rows[0]?.key;
  return {
    async trajectoryOf(sessionKey, options, signal) {
      signal?.throwIfAborted();
      const newest = options?.newest;
      if (newest === undefined) {
        const all = await db.query<TrajectoryRaw>(
          `SELECT ${TRAJECTORY_COLUMNS} FROM trajectory t WHERE t.session_key = $1 ORDER BY t.seq, t.id`,
          [sessionKey],
        );
        return all.rows.map(toTrajectory);
      }
      const rows = await db.query<TrajectoryRaw>(
        `SELECT ${TRAJECTORY_COLUMNS} FROM trajectory t WHERE t.session_key = $1 ORDER BY t.seq DESC, t.id DESC LIMIT $2`,
        [sessionKey, newest],
      );
      return rows.rows.reverse().map(toTrajectory);
    },
    async trajectoryCountOf(sessionKey, signal) {
      signal?.throwIfAborted();
      return (
        (await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM trajectory WHERE session_key = $1', [sessionKey]))
          .rows[0]?.n ?? 0
      );
    },
    async trajectoryOfKind({ kind, agentId, newest }, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const where = buildWhere(params, [
        ['t.kind', '=', kind],
        ['s.agent_id', '=', agentId],
      ]);
      const rows = await db.query<TrajectoryRaw & { agentId: string }>(
        `SELECT ${TRAJECTORY_COLUMNS}, s.agent_id AS "agentId" FROM trajectory t JOIN session_index s ON s.trace_id = t.trace_id
         ${where} ORDER BY t.id DESC LIMIT ${params.add(newest)}`,
        params.values,
      );
      return rows.rows.reverse().map((row) => ({ ...toTrajectory(row), agentId: row.agentId }));
    },
    async sessionKeyOfTrace(traceId, signal) {
      signal?.throwIfAborted();
      return (
        (await keyOf('SELECT session_key AS key FROM session_index WHERE trace_id = $1', [traceId])) ??
        (await keyOf('SELECT session_key AS key FROM trajectory WHERE trace_id = $1 LIMIT 1', [traceId]))
      );
    },
    async sessionKeyOfRoot(rootRunId, signal) {
      signal?.throwIfAborted();
      return (
        (await keyOf(
          'SELECT session_key AS key FROM session_index WHERE root_run_id = $1 ORDER BY started_at, trace_id LIMIT 1',
          [rootRunId],
        )) ?? (await keyOf('SELECT session_key AS key FROM runs WHERE run_id = $1', [rootRunId]))
      );
    },
    async sessionIndexOf(sessionKey, signal) {
      signal?.throwIfAborted();
      return (
        await db.query<SessionIndexRow>(`${INDEX_SELECT} WHERE session_key = $1 ORDER BY started_at, trace_id`, [
          sessionKey,
        ])
      ).rows;
    },
    async rootRunOfSession(sessionKey, signal) {
      signal?.throwIfAborted();
      const result = await db.query<{ root: string }>(
        'SELECT root_run_id AS root FROM runs WHERE session_key = $1 OR parent_key = $1 ORDER BY started_at, run_id LIMIT 1',
        [sessionKey],
      );
      return result.rows[0]?.root;
    },
    async runsOfRoot(rootRunId, limit, signal) {
      signal?.throwIfAborted();
      return (
        await db.query<EvidenceRun>(
          `SELECT ${RUN_COLUMNS} FROM runs WHERE root_run_id = $1 ORDER BY started_at, run_id LIMIT $2`,
          [rootRunId, limit],
        )
      ).rows;
    },
  };
}
