// obs.trace.get: resolves a traceId to its turn, checks the caller may read the turn's session, and assembles the
// waterfall from the turn's trajectory records and the approval requests it made.
import { sessionForbidden, traceNotFound } from '../errors.js';
import type { ApprovalPort, EvidencePort, SessionPort } from '../store/index.js';
import { toTrajectoryEvidence } from './evidence/rows.js';
import { MAX_SESSION_TRAJECTORY_ROWS } from './evidence/session-loader.js';
import { assembleTraceWaterfall, TRACE_MAX_SPANS, type TraceWaterfall } from './trace-waterfall.js';

/** Who asks: an admin reads every turn, anyone else only the turns of sessions its token owns. */
export interface TraceReader {
  clientId: string;
  isAdmin: boolean;
}

export interface TraceGetDeps {
  evidence: EvidencePort;
  approvals: Pick<ApprovalPort, 'listOfTrace'>;
  sessions: Pick<SessionPort, 'get'>;
  /** Writes buffered evidence first, so the turn that just ended is read whole. */
  flush: () => Promise<void>;
}

export function createTraceGet({ evidence, approvals, sessions, flush }: TraceGetDeps) {
  return async function getTrace(traceId: string, reader: TraceReader): Promise<TraceWaterfall> {
    await flush();
    const sessionKey = await evidence.sessionKeyOfTrace(traceId);
    if (sessionKey === undefined) throw traceNotFound(traceId);
    if (!reader.isAdmin) {
      // A session without a recorded owner is the admins' alone (sessions/session-access.ts).
      const session = await sessions.get(sessionKey);
      if (session?.ownerId !== reader.clientId) throw sessionForbidden(sessionKey);
    }
    const turn = (await evidence.sessionIndexOf(sessionKey)).find((row) => row.traceId === traceId);
    if (turn === undefined) throw traceNotFound(traceId);
    const records = (await evidence.trajectoryOf(sessionKey, { newest: MAX_SESSION_TRAJECTORY_ROWS }))
      .filter((record) => record.traceId === traceId)
      .map(toTrajectoryEvidence);
    const requests = await approvals.listOfTrace(traceId, TRACE_MAX_SPANS);
    return assembleTraceWaterfall(turn, records, requests);
  };
}
