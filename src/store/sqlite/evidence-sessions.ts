// The per-session reads of the SQLite EvidencePort: a session's turns, trajectory and spawn tree, and lookups by trace or root run.
import type { EvidencePort } from '../ports/evidence.js';
import type { SqliteDatabase } from './database.js';
import {
  INDEX_SELECT,
  RUN_SELECT,
  toIndexRow,
  toTrajectory,
  TRAJECTORY_COLUMNS,
  type IndexRaw,
  type RunRaw,
  type TrajectoryRaw,
} from './evidence-rows.js';
import { buildWhere } from './where.js';

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

export function createSqliteSessionReads(db: SqliteDatabase): SessionReads {
  const allOf = db.prepare<[string], TrajectoryRaw>(
    `SELECT ${TRAJECTORY_COLUMNS} FROM trajectory t WHERE t.session_key = ? ORDER BY t.seq, t.id`,
  );
  const newestOf = db.prepare<[string, number], TrajectoryRaw>(
    `SELECT ${TRAJECTORY_COLUMNS} FROM trajectory t WHERE t.session_key = ? ORDER BY t.seq DESC, t.id DESC LIMIT ?`,
  );
  const countOf = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM trajectory WHERE session_key = ?');
  const indexByTrace = db.prepare<[string], { key: string }>(
    'SELECT session_key AS key FROM session_index WHERE trace_id = ?',
  );
  const trajectoryByTrace = db.prepare<[string], { key: string }>(
    'SELECT session_key AS key FROM trajectory WHERE trace_id = ? LIMIT 1',
  );
  const indexByRoot = db.prepare<[string], { key: string }>(
    'SELECT session_key AS key FROM session_index WHERE root_run_id = ? ORDER BY started_at, trace_id LIMIT 1',
  );
  const runById = db.prepare<[string], { key: string }>('SELECT session_key AS key FROM runs WHERE run_id = ?');
  const indexOf = db.prepare<[string], IndexRaw>(`${INDEX_SELECT} WHERE session_key = ? ORDER BY started_at, trace_id`);
  const rootOf = db.prepare<[string, string], { root: string }>(
    'SELECT root_run_id AS root FROM runs WHERE session_key = ? OR parent_key = ? ORDER BY started_at, run_id LIMIT 1',
  );
  const runsOf = db.prepare<[string, number], RunRaw>(
    `${RUN_SELECT} WHERE root_run_id = ? ORDER BY started_at, run_id LIMIT ?`,
  );

  return {
    async trajectoryOf(sessionKey, options) {
      const newest = options?.newest;
      return newest === undefined
        ? allOf.all(sessionKey).map(toTrajectory)
        : newestOf.all(sessionKey, newest).reverse().map(toTrajectory);
    },
    async trajectoryCountOf(sessionKey) {
      return countOf.get(sessionKey)?.n ?? 0;
    },
    async trajectoryOfKind({ kind, agentId, newest }) {
      const where = buildWhere([
        ['t.kind', '=', kind],
        ['s.agent_id', '=', agentId],
      ]);
      const rows = db
        .prepare<(string | number)[], TrajectoryRaw & { agentId: string }>(
          `SELECT ${TRAJECTORY_COLUMNS}, s.agent_id AS agentId FROM trajectory t JOIN session_index s ON s.trace_id = t.trace_id
         ${where.sql} ORDER BY t.id DESC LIMIT ?`,
        )
        .all(...where.values, newest);
      return rows.reverse().map((row) => ({ ...toTrajectory(row), agentId: row.agentId }));
    },
    async sessionKeyOfTrace(traceId) {
      return indexByTrace.get(traceId)?.key ?? trajectoryByTrace.get(traceId)?.key;
    },
    async sessionKeyOfRoot(rootRunId) {
      return indexByRoot.get(rootRunId)?.key ?? runById.get(rootRunId)?.key;
    },
    async sessionIndexOf(sessionKey) {
      return indexOf.all(sessionKey).map(toIndexRow);
    },
    async rootRunOfSession(sessionKey) {
      return rootOf.get(sessionKey, sessionKey)?.root;
    },
    async runsOfRoot(rootRunId, limit) {
      return runsOf.all(rootRunId, limit);
    },
  };
}
