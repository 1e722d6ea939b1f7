// The fleet's likelyRootCause, in the spec's ranking: autonomy degradation, high degraded rate, acute degradation,
// config posture, recurring health signal.
import { topKey } from '../evidence/read.js';
import type { AutonomyBlock, Finding, FleetHealthReport, FleetRootCause } from './types.js';

/**
 * fleet_high_degraded_rate fires at this degraded-session rate or above (spec: "not shown"; decided here),
 * and only over at least HIGH_RATE_MIN_SESSIONS sessions so two bad sessions of three are not a fleet spike.
 */
export const HIGH_DEGRADED_RATE = 0.3;
export const HIGH_RATE_MIN_SESSIONS = 5;

export interface FleetCauseInput {
  sessions: FleetHealthReport['sessions'];
  degradedByCause: ReadonlyMap<string, number>;
  autonomy: AutonomyBlock | undefined;
  posture: Finding | undefined;
  recurring: readonly Finding[];
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

export function fleetRootCause({
  sessions,
  degradedByCause,
  autonomy,
  posture,
  recurring,
}: FleetCauseInput): FleetRootCause {
  if (
    autonomy !== undefined &&
    (autonomy.runs.degraded > 0 || autonomy.killed > 0 || autonomy.denialBreakerTrips > 0)
  ) {
    const worst = autonomy.worstRootRunId ?? 'unknown';
    return {
      code: 'fleet_autonomy_degradation',
      detail:
        `Autonomous runs degraded: ${autonomy.orphaned} orphaned, ${autonomy.revoked} revoked, ${autonomy.killed} killed, ` +
        `${autonomy.denialBreakerTrips} denial-breaker abort(s); worst root run ${worst}.`,
      suggestedNextSteps: [
        `Explain the worst run: obs.explain {rootRunId: "${worst}"}.`,
        'Review the autonomy findings below.',
      ],
    };
  }
  const dominant = topKey(degradedByCause);
  if (sessions.total >= HIGH_RATE_MIN_SESSIONS && sessions.degradedRate >= HIGH_DEGRADED_RATE) {
    return {
      code: 'fleet_high_degraded_rate',
      detail: `${sessions.degraded} of ${sessions.total} sessions (${percent(sessions.degradedRate)}) ended degraded, at or above the ${percent(HIGH_DEGRADED_RATE)} spike level; most ended ${dominant ?? 'unknown'}.`,
      suggestedNextSteps: [
        'Check provider health (provider:degraded events, obs.diagnostics) and recent config changes (config.history).',
        'Explain a few degraded sessions with obs.explain (obs.trace.search where "degraded = true").',
      ],
    };
  }
  if (sessions.degraded > 0 && dominant !== undefined) {
    return {
      code: 'fleet_acute_degradation',
      detail: `${sessions.degraded} degraded session(s); dominant cause ${dominant} (${degradedByCause.get(dominant) ?? 0}).`,
      suggestedNextSteps: [
        `Explain a session that ended ${dominant}: obs.trace.search where "endReason = ${dominant}", then obs.explain.`,
      ],
    };
  }
  if (posture !== undefined) {
    return { code: 'fleet_config_posture', detail: posture.detail, suggestedNextSteps: [posture.hint] };
  }
  const top = recurring[0];
  if (top !== undefined) {
    return { code: 'fleet_recurring_health_signal', detail: top.detail, suggestedNextSteps: [top.hint] };
  }
  return { code: 'none', detail: 'No fleet-wide problem in the window.', suggestedNextSteps: [] };
}
