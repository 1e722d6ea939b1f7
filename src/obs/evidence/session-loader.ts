// Reads one session's evidence for obs.explain from SQLite: resolves sessionKey, traceId or rootRunId, then loads rows.
import type { SqliteDatabase } from '../../store/index.js';
import type { SessionEvidence } from './records.js';
import { INDEX_COLUMNS, RUN_COLUMNS, toIndexEvidence, toRunEvidence, toTrajectoryEvidence, type IndexRow, type RunRow, type TrajectoryRow } from './rows.js';

/** Spec rule 3: a synthetic rootRunId is this prefix followed by the session key. */
export const SYNTHETIC_ROOT_PREFIX = 'root-session-';

/** The newest this many trajectory records of a session are read; older ones are listed in truncations[]. */
export const MAX_SESSION_TRAJECTORY_ROWS = 20_000;
const MAX_TREE_RUNS = 2_000;

export interface SessionReference {
  sessionKey?: string;
  traceId?: string;
  rootRunId?: string;
}

export interface MissedReference {
  kind: 'sessionKey' | 'traceId' | 'rootRunId';
  value: string;
  detail: string;
}

export type SessionLoad = { found: true; evidence: SessionEvidence } | { found: false; missed: MissedReference };

export interface SessionLoader {
  load(reference: SessionReference, options: { includeSynthetic: boolean }): Promise<SessionLoad>;
}

export interface SessionLoaderDeps {
  db: SqliteDatabase;
  /** Writes buffered evidence first, so a report sees the turn that just ended. */
  flush?: () => Promise<void>;
}

export function createSessionLoader({ db, flush }: SessionLoaderDeps): SessionLoader {
  const indexByTrace = db.prepare<[string], { session_key: string }>('SELECT session_key FROM session_index WHERE trace_id = ?');
  const trajectoryByTrace = db.prepare<[string], { session_key: string }>('SELECT session_key FROM trajectory WHERE trace_id = ? LIMIT 1');
  const indexByRoot = db.prepare<[string], { session_key: string }>(
    'SELECT session_key FROM session_index WHERE root_run_id = ? ORDER BY started_at, trace_id LIMIT 1');
  const runById = db.prepare<[string], { session_key: string }>('SELECT session_key FROM runs WHERE run_id = ?');
  const indexOfSession = db.prepare<[string], IndexRow>(`SELECT ${INDEX_COLUMNS} FROM session_index WHERE session_key = ? ORDER BY started_at, trace_id`);
  const trajectoryCount = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM trajectory WHERE session_key = ?');
  const trajectoryOf = db.prepare<[string, number], TrajectoryRow>(
    'SELECT seq, ts, trace_id, kind, data FROM trajectory WHERE session_key = ? ORDER BY seq DESC, id DESC LIMIT ?');
  const rootOfSession = db.prepare<[string, string], { root_run_id: string }>(
    'SELECT root_run_id FROM runs WHERE session_key = ? OR parent_key = ? ORDER BY started_at, run_id LIMIT 1');
  const runsOfRoot = db.prepare<[string, number], RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE root_run_id = ? ORDER BY started_at, run_id LIMIT ?`);

  const hasEvidence = (sessionKey: string) => indexOfSession.all(sessionKey).length > 0 || (trajectoryCount.get(sessionKey)?.n ?? 0) > 0;

  function resolve(reference: SessionReference): { sessionKey: string } | { missed: MissedReference } {
    const resolved: string[] = [];
    if (reference.sessionKey !== undefined) {
      if (!hasEvidence(reference.sessionKey)) {
        return { missed: { kind: 'sessionKey', value: reference.sessionKey, detail: `No recorded session has sessionKey '${reference.sessionKey}'.` } };
      }
      resolved.push(reference.sessionKey);
    }
    if (reference.traceId !== undefined) {
      const key = indexByTrace.get(reference.traceId)?.session_key ?? trajectoryByTrace.get(reference.traceId)?.session_key;
      if (key === undefined) return { missed: { kind: 'traceId', value: reference.traceId, detail: `No recorded turn has traceId '${reference.traceId}'.` } };
      resolved.push(key);
    }
    if (reference.rootRunId !== undefined) {
      const { rootRunId } = reference;
      const key = rootRunId.startsWith(SYNTHETIC_ROOT_PREFIX)
        ? rootRunId.slice(SYNTHETIC_ROOT_PREFIX.length)
        : indexByRoot.get(rootRunId)?.session_key ?? runById.get(rootRunId)?.session_key;
      if (key === undefined || key === '' || !hasEvidence(key)) {
        return { missed: { kind: 'rootRunId', value: rootRunId, detail: `No recorded session belongs to rootRunId '${rootRunId}'.` } };
      }
      resolved.push(key);
    }
    const first = resolved[0];
    if (first === undefined) throw new TypeError('a session reference needs sessionKey, traceId or rootRunId');
    return { sessionKey: first };
  }

  return {
    async load(reference, { includeSynthetic }) {
      await flush?.();
      const target = resolve(reference);
      if ('missed' in target) return { found: false, missed: target.missed };
      const { sessionKey } = target;
      const index = indexOfSession.all(sessionKey).map(toIndexEvidence);
      if (!includeSynthetic && index.length > 0 && index.every((row) => row.isSynthetic)) {
        const kind = reference.sessionKey !== undefined ? 'sessionKey' : reference.traceId !== undefined ? 'traceId' : 'rootRunId';
        const value = reference[kind] ?? sessionKey;
        return { found: false, missed: { kind, value, detail: `Session '${sessionKey}' is synthetic; pass includeSynthetic: true to explain it.` } };
      }
      const total = trajectoryCount.get(sessionKey)?.n ?? 0;
      const trajectory = trajectoryOf.all(sessionKey, MAX_SESSION_TRAJECTORY_ROWS).reverse().map(toTrajectoryEvidence);
      const root = [...index].reverse().find((row) => row.rootRunId !== null)?.rootRunId ?? rootOfSession.get(sessionKey, sessionKey)?.root_run_id;
      const runs = root === undefined ? [] : runsOfRoot.all(root, MAX_TREE_RUNS).map(toRunEvidence);
      const evidence: SessionEvidence = {
        sessionKey,
        index,
        trajectory,
        runs,
        sources: { session: 'sqlite:session_index', trajectory: 'sqlite:trajectory' },
        ...(total > trajectory.length ? { trajectoryCap: { kept: trajectory.length, total } } : {}),
      };
      return { found: true, evidence };
    },
  };
}
