// The session_not_found marker obs.explain returns instead of an empty-looking report (spec: Errors).
import type { SessionNotFound } from './types.js';

export function sessionNotFound(reference: SessionNotFound['reference'], detail: string): SessionNotFound {
  const steps =
    reference.kind === 'rootRunId'
      ? [
          'Check the rootRunId (a synthetic one is root-session-<sessionKey>); a cron job id is not a run id, read skipped fires with cron.runs.',
        ]
      : reference.kind === 'traceId'
        ? ['Find the turn with obs.trace.search (it reads the last two days), then explain it by sessionKey.']
        : ['List sessions with session.list, or search recent turns with obs.trace.search.'];
  return { schemaVersion: 1, marker: 'session_not_found', reference, detail, suggestedNextSteps: steps };
}
