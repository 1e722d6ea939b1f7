// Reads one session's evidence for obs.explain through the EvidencePort: resolves sessionKey, traceId or rootRunId, then loads rows.
import type { EvidencePort } from '../../store/index.js';
import type { SessionEvidence } from './records.js';
import { toRunEvidence, toTrajectoryEvidence } from './rows.js';

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
  port: EvidencePort;
  /** Writes buffered evidence first, so a report sees the turn that just ended. */
  flush?: () => Promise<void>;
}

export function createSessionLoader({ port, flush }: SessionLoaderDeps): SessionLoader {
  const hasEvidence = async (sessionKey: string) =>
    (await port.sessionIndexOf(sessionKey)).length > 0 || (await port.trajectoryCountOf(sessionKey)) > 0;

  async function resolve(reference: SessionReference): Promise<{ sessionKey: string } | { missed: MissedReference }> {
    const resolved: string[] = [];
    if (reference.sessionKey !== undefined) {
      if (!(await hasEvidence(reference.sessionKey))) {
        return {
          missed: {
            kind: 'sessionKey',
            value: reference.sessionKey,
            detail: `No recorded session has sessionKey '${reference.sessionKey}'.`,
          },
        };
      }
      resolved.push(reference.sessionKey);
    }
    if (reference.traceId !== undefined) {
      const key = await port.sessionKeyOfTrace(reference.traceId);
      if (key === undefined)
        return {
          missed: {
            kind: 'traceId',
            value: reference.traceId,
            detail: `No recorded turn has traceId '${reference.traceId}'.`,
          },
        };
      resolved.push(key);
    }
    if (reference.rootRunId !== undefined) {
      const { rootRunId } = reference;
      const key = rootRunId.startsWith(SYNTHETIC_ROOT_PREFIX)
        ? rootRunId.slice(SYNTHETIC_ROOT_PREFIX.length)
        : await port.sessionKeyOfRoot(rootRunId);
      if (key === undefined || key === '' || !(await hasEvidence(key))) {
        return {
          missed: {
            kind: 'rootRunId',
            value: rootRunId,
            detail: `No recorded session belongs to rootRunId '${rootRunId}'.`,
          },
        };
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
      const target = await resolve(reference);
      if ('missed' in target) return { found: false, missed: target.missed };
      const { sessionKey } = target;
      const index = await port.sessionIndexOf(sessionKey);
      if (!includeSynthetic && index.length > 0 && index.every((row) => row.isSynthetic)) {
        const kind =
          reference.sessionKey !== undefined ? 'sessionKey' : reference.traceId !== undefined ? 'traceId' : 'rootRunId';
        const value = reference[kind] ?? sessionKey;
        return {
          found: false,
          missed: {
            kind,
            value,
            detail: `Session '${sessionKey}' is synthetic; pass includeSynthetic: true to explain it.`,
          },
        };
      }
      const total = await port.trajectoryCountOf(sessionKey);
      const trajectory = (await port.trajectoryOf(sessionKey, { newest: MAX_SESSION_TRAJECTORY_ROWS })).map(
        toTrajectoryEvidence,
      );
      const root =
        [...index].reverse().find((row) => row.rootRunId !== null)?.rootRunId ??
        (await port.rootRunOfSession(sessionKey));
      const runs = root === undefined ? [] : (await port.runsOfRoot(root, MAX_TREE_RUNS)).map(toRunEvidence);
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
