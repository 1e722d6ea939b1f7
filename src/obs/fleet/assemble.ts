// obs.fleet.health's report: a pure function from a window's recorded evidence to a FleetHealthReport (no clock, no I/O).
import { compareText, sortedObject } from '../evidence/read.js';
import type { FleetEvidence } from '../evidence/records.js';
import { autonomyBlock, autonomyFindings } from './autonomy.js';
import { fleetRootCause } from './root-cause.js';
import { sessionNumbers } from './sessions.js';
import {
  authoringFinding,
  authoringGate,
  cronFinding,
  cronWakeGate,
  mcpUnavailableFinding,
  memoryLifecycleFinding,
  orchestrateFinding,
  postureFinding,
  recurringFindings,
  voiceFinding,
} from './signals.js';
import type { Finding, FleetHealthReport, FleetTruncation } from './types.js';

/** Caps (spec: "capped top-N; exact N: not shown"). Decided here. */
export const FLEET_CAPS = {
  findings: 10,
  topErrorKinds: 10,
  toolStats: 50,
  activeAgents: 100,
  activeChannels: 100,
  suggestedNextSteps: 8,
} as const;

const SEVERITY_RANK = { error: 0, warning: 1, info: 2 } as const;
const DAY_MS = 86_400_000;

const byFindingRank = (a: Finding, b: Finding) =>
  SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
  b.count - a.count ||
  compareText(a.code, b.code) ||
  compareText(a.detail, b.detail);

/** UTC days the window touches, as session_index.day strings. */
function windowDays(nowMs: number, sinceHours: number): string[] {
  const days: string[] = [];
  const start = Math.floor((nowMs - sinceHours * 3_600_000) / DAY_MS);
  const end = Math.floor(nowMs / DAY_MS);
  // A window longer than a year is read, but coverage counts its last 366 days only.
  for (let day = Math.max(start, end - 365); day <= end; day += 1)
    days.push(new Date(day * DAY_MS).toISOString().slice(0, 10));
  return days;
}

function cap<T>(field: string, items: T[], keep: number, truncations: FleetTruncation[]): T[] {
  if (items.length <= keep) return items;
  truncations.push({ field, kept: keep, total: items.length });
  return items.slice(0, keep);
}

/** Builds the report; the same evidence always gives byte-identical JSON. */
export function assembleFleetHealth(evidence: FleetEvidence): FleetHealthReport {
  const truncations: FleetTruncation[] = [...(evidence.caps ?? [])];
  const numbers = sessionNumbers(evidence);
  const autonomy = autonomyBlock(evidence.runs, evidence.signals);
  const gate = cronWakeGate(evidence.signals);
  const posture = postureFinding(evidence.latestPosture);
  const recurring = recurringFindings(evidence.signals).sort(byFindingRank);

  const allFindings = [
    ...recurring,
    posture,
    voiceFinding(evidence.signals),
    authoringFinding(evidence.signals),
    orchestrateFinding(evidence.signals),
    cronFinding(gate),
    ...autonomyFindings(autonomy),
    memoryLifecycleFinding(evidence.signals),
    mcpUnavailableFinding(evidence.signals),
  ]
    .filter((finding): finding is Finding => finding !== undefined)
    .sort(byFindingRank);
  const findings = cap('findings', allFindings, FLEET_CAPS.findings, truncations);

  const errorKinds = [...numbers.errorKinds.entries()]
    .map(([kind, count]) => ({ kind, count }))
    .sort((a, b) => b.count - a.count || compareText(a.kind, b.kind));
  const toolEntries = [...numbers.toolStats.entries()].sort(
    ([a, x], [b, y]) => y.failed - x.failed || y.ok + y.failed - (x.ok + x.failed) || compareText(a, b),
  );
  const keptTools = new Map(cap('toolStats', toolEntries, FLEET_CAPS.toolStats, truncations));

  const cause = fleetRootCause({
    sessions: numbers.sessions,
    degradedByCause: numbers.degradedByCause,
    autonomy,
    posture,
    recurring,
  });
  const steps = [
    ...cause.suggestedNextSteps,
    ...allFindings.filter((finding) => finding.severity !== 'info').map((finding) => finding.hint),
  ];

  const days = windowDays(evidence.nowMs, evidence.sinceHours);
  const daysRead = days.filter((day) => numbers.daysRead.has(day)).length;

  const report: FleetHealthReport = {
    schemaVersion: 1,
    windowHours: evidence.sinceHours,
    sessions: numbers.sessions,
    degradedByCause: sortedObject(numbers.degradedByCause),
    topErrorKinds: cap('topErrorKinds', errorKinds, FLEET_CAPS.topErrorKinds, truncations),
    breakerTripTotal: numbers.breakerTripTotal,
    toolStats: sortedObject(keptTools),
    cost: numbers.cost,
    activity: {
      ...numbers.activity,
      activeAgents: cap('activity.activeAgents', numbers.activity.activeAgents, FLEET_CAPS.activeAgents, truncations),
      activeChannels: cap(
        'activity.activeChannels',
        numbers.activity.activeChannels,
        FLEET_CAPS.activeChannels,
        truncations,
      ),
    },
    findings,
    likelyRootCause: cause,
    pipelineAuthoringGate: authoringGate(evidence.signals),
    ...(autonomy === undefined ? {} : { autonomy }),
    ...(gate === undefined ? {} : { cronWakeGate: gate }),
    suggestedNextSteps: cap('suggestedNextSteps', [...new Set(steps)], FLEET_CAPS.suggestedNextSteps, truncations),
    truncations: [],
    coverage: {
      sessionSummary: { found: numbers.finishedRows > 0, rows: numbers.finishedRows },
      sessionIndex: { daysRead, daysMissing: days.length - daysRead },
      billing: { present: evidence.usage.length > 0 },
    },
  };
  report.truncations = truncations.sort((a, b) => compareText(a.field, b.field));
  return report;
}
