// Which session endings are healthy: an answer, and a hand-off of tool calls to the client (DESIGN §3 "client tool
// hand-off"). Every other recorded ending is degraded, in the index row, obs.explain and obs.fleet.health alike.

/** A turn that answered, and a /v1 turn that ended by handing its client the tool calls to run (finish_reason tool_calls). */
export const HEALTHY_END_REASONS: ReadonlySet<string> = new Set(['completed', 'tool_calls']);

export function isDegradedEnding(endReason: string): boolean {
  return !HEALTHY_END_REASONS.has(endReason);
}
