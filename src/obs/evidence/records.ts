// The evidence records the report assemblers take as input: plain rows, already read through the EvidencePort by a loader.
import type { SessionIndexRow } from '../../store/index.js';
import type { Data } from './read.js';

/** One trajectory record; `seq` is per session and increasing. */
export interface TrajectoryEvidence {
  seq: number;
  ts: number;
  traceId: string;
  kind: string;
  data: Data;
}

/** One session_index row: one turn (trace) of a session, as the store reads it. */
export type SessionIndexEvidence = SessionIndexRow;

/** One row of the durable run table (sub-agent and autonomy runs). `status` is the raw stored value. */
export interface RunEvidence {
  runId: string;
  rootRunId: string;
  parentKey: string | null;
  sessionKey: string;
  agentId: string;
  status: string;
  startedAt: number;
  costUsd: number;
}

/** One health_signals row; `data` is parsed defensively (malformed JSON is an empty object). */
export interface HealthSignalEvidence {
  id: number;
  ts: number;
  kind: string;
  agentId: string | null;
  rootRunId: string | null;
  severity: string;
  data: Data;
}

/** token_usage rows of one agent, provider and model, summed (a loader may also pass single rows, calls 1). */
export interface UsageEvidence {
  agentId: string;
  provider: string;
  model: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  costUsd: number;
}

/** Everything obs.explain knows about one session. */
export interface SessionEvidence {
  sessionKey: string;
  /** Every turn of the session, in any order (the assembler sorts). */
  index: readonly SessionIndexEvidence[];
  /** The session's trajectory records, in any order (the assembler sorts by seq). */
  trajectory: readonly TrajectoryEvidence[];
  /** Durable runs of the session's spawn tree (empty when it spawned none). */
  runs: readonly RunEvidence[];
  /** Where the evidence was read from, for coverage.sources. */
  sources: { session: string; trajectory: string };
  /** Set when the loader stopped reading at its row cap. */
  trajectoryCap?: { kept: number; total: number };
}

/** Everything obs.fleet.health knows about a window. */
export interface FleetEvidence {
  /** The report's clock: the window is [nowMs - sinceHours h, nowMs]. */
  nowMs: number;
  sinceHours: number;
  /** session_index rows that started in the window (synthetic rows already excluded). */
  sessions: readonly SessionIndexEvidence[];
  /** Trajectory records of those sessions' turns (tool_call, breaker, turn_end, model_error kinds suffice). */
  trajectory: readonly TrajectoryEvidence[];
  usage: readonly UsageEvidence[];
  /** health_signals rows in the window. */
  signals: readonly HealthSignalEvidence[];
  /** The newest config_posture row at or before nowMs, whatever its age (the latest boot). */
  latestPosture?: HealthSignalEvidence;
  /** Durable runs started in the window; undefined when no durable store is wired (no autonomy block). */
  runs?: readonly RunEvidence[];
  /** Set for each input the loader stopped reading at its row cap. */
  caps?: { field: string; kept: number; total: number }[];
}
