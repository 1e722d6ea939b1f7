// The end reason of a turn that never recorded one because the gateway died under it (spec: daemon restart → orphaned).
import type { RunEvidence } from './records.js';

/**
 * What both reports call a session whose last turn never ended and whose durable run a restart marked `orphaned`.
 * The spec counts such a run as degraded, so obs.explain and obs.fleet.health must both see it as such.
 */
export const ORPHANED_END_REASON = 'orphaned';

/** Sessions whose durable run a gateway restart found unfinished. */
export function orphanedSessions(runs: readonly RunEvidence[] | undefined): ReadonlySet<string> {
  return new Set((runs ?? []).filter((run) => run.status === 'orphaned').map((run) => run.sessionKey));
}
