// The FleetHealthReport returned by obs.fleet.health (spec: "FleetHealthReport").
import type { Severity } from '../evidence/kinds.js';

export interface FleetToolStat {
  ok: number;
  failed: number;
  topErrorKind: string | null;
}

export interface Finding {
  code: string;
  detail: string;
  count: number;
  hint: string;
  /** Ranks findings (error, warning, info); orchestrate_efficiency is info per the spec. */
  severity: Severity;
}

export interface FleetRootCause {
  code: string;
  detail: string;
  suggestedNextSteps: string[];
}

export interface AutonomyBlock {
  runs: { total: number; degraded: number; degradedRate: number };
  orphaned: number;
  resumed: number;
  revoked: number;
  killed: number;
  breakerTrips: number;
  denialBreakerTrips: number;
  budgetBreaches: number;
  costUsd: number;
  worstRootRunId?: string;
}

export interface CronGateCounts {
  fires: number;
  skipped: number;
  skipRate: number;
  failedOpen: number;
  failOpenRate: number;
  turnsSaved: number;
  toolCalls: number;
}

export interface CronWakeGateFleetBlock {
  fires: { total: number; skipped: number; skipRate: number; failedOpen: number; failOpenRate: number };
  turnsSaved: number;
  toolCalls: number;
  perAgent: ({ agentId: string } & CronGateCounts)[];
}

export interface FleetTruncation {
  field: string;
  kept: number;
  total: number;
}

export interface FleetHealthReport {
  schemaVersion: 1;
  windowHours: number;
  sessions: { total: number; degraded: number; degradedRate: number };
  degradedByCause: Record<string, number>;
  topErrorKinds: { kind: string; count: number }[];
  breakerTripTotal: number;
  toolStats: Record<string, FleetToolStat>;
  cost: { costUsd: number; totalTokens: number };
  activity: {
    activeAgents: string[];
    activeChannels: string[];
    exitReasons: Record<string, number>;
    turnTotal: number;
    tokenTotal: number;
  };
  findings: Finding[];
  likelyRootCause: FleetRootCause;
  pipelineAuthoringGate?: { buildAuthor: boolean; reason: string };
  autonomy?: AutonomyBlock;
  cronWakeGate?: CronWakeGateFleetBlock;
  suggestedNextSteps: string[];
  truncations: FleetTruncation[];
  coverage?: {
    sessionSummary: { found: boolean; rows: number };
    sessionIndex: { daysRead: number; daysMissing: number };
    billing: { present: boolean };
  };
}
