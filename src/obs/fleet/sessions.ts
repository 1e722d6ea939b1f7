// Session-level fleet numbers: degraded sessions by cause, activity, tool stats, merged error kinds, breaker trips, cost.
import { SIGNAL_KIND, TRAJECTORY_KIND } from '../evidence/kinds.js';
import { isDegradedEnding } from '../evidence/endings.js';
import { ORPHANED_END_REASON, orphanedSessions } from '../evidence/orphans.js';
import { bump, compareText, count, round, sortedObject, str, topKey } from '../evidence/read.js';
import type { FleetEvidence, SessionIndexEvidence } from '../evidence/records.js';
import type { FleetHealthReport, FleetToolStat } from './types.js';

/** Breaker events that count as a trip. */
const TRIP_EVENTS: ReadonlySet<string> = new Set(['opened', 'tripped']);

export interface SessionNumbers {
  sessions: FleetHealthReport['sessions'];
  degradedByCause: Map<string, number>;
  activity: FleetHealthReport['activity'];
  toolStats: Map<string, FleetToolStat>;
  errorKinds: Map<string, number>;
  breakerTripTotal: number;
  cost: FleetHealthReport['cost'];
  finishedRows: number;
  daysRead: Set<string>;
}

/** A session's state is its latest turn's (latest start, then trace id), as in obs.explain. */
function latestTurns(rows: readonly SessionIndexEvidence[]): SessionIndexEvidence[] {
  const latest = new Map<string, SessionIndexEvidence>();
  for (const row of rows) {
    const seen = latest.get(row.sessionKey);
    if (
      seen === undefined ||
      row.startedAt > seen.startedAt ||
      (row.startedAt === seen.startedAt && compareText(row.traceId, seen.traceId) > 0)
    ) {
      latest.set(row.sessionKey, row);
    }
  }
  return [...latest.values()];
}

/**
 * A turn that never recorded its end is still running, unless a restart orphaned its session's durable run: then it
 * is degraded with endReason `orphaned`, exactly as obs.explain reports it.
 */
function withOrphans(turns: readonly SessionIndexEvidence[], orphaned: ReadonlySet<string>): SessionIndexEvidence[] {
  return turns.map((turn) =>
    turn.endReason === null && orphaned.has(turn.sessionKey)
      ? { ...turn, endReason: ORPHANED_END_REASON, degraded: true }
      : turn,
  );
}

/**
 * A healthy ending is never degraded, whatever its row says: rows written before the client tool hand-off counted as
 * healthy (DESIGN §3) recorded `tool_calls` as degraded.
 */
function withHealthyEndings(turns: readonly SessionIndexEvidence[]): SessionIndexEvidence[] {
  return turns.map((turn) =>
    turn.degraded && turn.endReason !== null && !isDegradedEnding(turn.endReason) ? { ...turn, degraded: false } : turn,
  );
}

export function sessionNumbers(evidence: FleetEvidence): SessionNumbers {
  const turns = withHealthyEndings(withOrphans(evidence.sessions, orphanedSessions(evidence.runs)));
  const latest = latestTurns(turns);
  const degradedByCause = new Map<string, number>();
  for (const session of latest) {
    // Spec: a degraded session with no recorded cause folds into `unknown`.
    if (session.degraded) bump(degradedByCause, session.endReason ?? 'unknown');
  }
  const degraded = latest.filter((session) => session.degraded).length;

  const exitReasons = new Map<string, number>();
  for (const turn of turns) bump(exitReasons, turn.endReason ?? 'in_progress');

  const okCounts = new Map<string, number>();
  const failedCounts = new Map<string, number>();
  const kindsByTool = new Map<string, Map<string, number>>();
  const errorKinds = new Map<string, number>();
  let breakerTripTotal = 0;
  let tokenTotal = 0;
  for (const { kind, data } of evidence.trajectory) {
    if (kind === TRAJECTORY_KIND.toolCall) {
      if (typeof data.ok !== 'boolean') continue;
      const tool = str(data.toolName) ?? 'unknown';
      if (data.ok === true) {
        bump(okCounts, tool);
        continue;
      }
      const errorKind = str(data.errorKind) ?? 'failed';
      bump(failedCounts, tool);
      const kinds = kindsByTool.get(tool) ?? new Map<string, number>();
      bump(kinds, errorKind);
      kindsByTool.set(tool, kinds);
      bump(errorKinds, errorKind);
    } else if (kind === TRAJECTORY_KIND.modelError) {
      bump(errorKinds, str(data.errorKind) ?? 'internal');
    } else if (kind === TRAJECTORY_KIND.breaker) {
      if (TRIP_EVENTS.has(str(data.event) ?? '')) breakerTripTotal += 1;
    } else if (kind === TRAJECTORY_KIND.turnEnd) {
      tokenTotal += count(data.inputTokens) + count(data.outputTokens);
    }
  }
  for (const signal of evidence.signals) {
    if (signal.kind === SIGNAL_KIND.voice && signal.data.outcome === 'failed')
      bump(errorKinds, str(signal.data.errorKind) ?? 'failed');
  }
  const toolStats = new Map<string, FleetToolStat>();
  for (const tool of new Set([...okCounts.keys(), ...failedCounts.keys()])) {
    toolStats.set(tool, {
      ok: okCounts.get(tool) ?? 0,
      failed: failedCounts.get(tool) ?? 0,
      topErrorKind: topKey(kindsByTool.get(tool) ?? new Map()) ?? null,
    });
  }

  let costUsd = 0;
  let totalTokens = 0;
  for (const usage of evidence.usage) {
    costUsd += count(usage.costUsd);
    totalTokens += count(usage.inputTokens) + count(usage.outputTokens);
  }

  return {
    sessions: {
      total: latest.length,
      degraded,
      degradedRate: latest.length === 0 ? 0 : round(degraded / latest.length, 4),
    },
    degradedByCause,
    activity: {
      activeAgents: [...new Set(turns.map((turn) => turn.agentId))].sort(compareText),
      activeChannels: [...new Set(turns.map((turn) => turn.channel))].sort(compareText),
      exitReasons: sortedObject(exitReasons),
      turnTotal: turns.length,
      tokenTotal,
    },
    toolStats,
    errorKinds,
    breakerTripTotal,
    cost: { costUsd: round(costUsd, 6), totalTokens },
    finishedRows: evidence.sessions.filter((turn) => turn.endReason !== null).length,
    daysRead: new Set(turns.map((turn) => turn.day)),
  };
}
