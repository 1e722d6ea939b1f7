// The evidence port: counts-only turn evidence (trajectory, session index, token usage), appended in batches.

/** One trajectory record: a kind and a small data object of counts, ids and enums; never message bodies. */
export interface TrajectoryRecord {
  sessionKey: string;
  traceId: string;
  kind: string;
  ts: number;
  data: Record<string, unknown>;
}

/**
 * A stored trajectory record with its sequence number, derived when read: its place in its session for a session's
 * reads, its place in the result for the window and kind reads.
 */
export interface StoredTrajectory extends TrajectoryRecord {
  seq: number;
}

export interface SessionIndexStart {
  traceId: string;
  sessionKey: string;
  agentId: string;
  channel: string;
  messageId?: string;
  rootRunId?: string;
  startedAt: number;
  isSynthetic: boolean;
}

export interface SessionIndexEnd {
  traceId: string;
  endReason: string;
  degraded: boolean;
  endedAt: number;
}

export interface UsageRecord {
  ts: number;
  agentId: string;
  sessionKey: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

/** One step of a turn as its row stores it: a trajectory record without the ids the turn already carries. */
export interface TurnStep {
  kind: string;
  ts: number;
  data: Record<string, unknown>;
}

/** A whole turn in one write: its index entry, its end once it ended, and its steps in order. */
export interface TurnWrite extends SessionIndexStart {
  end?: Omit<SessionIndexEnd, 'traceId'>;
  steps: readonly TurnStep[];
}

export type EvidenceWrite =
  | { type: 'turn'; turn: TurnWrite }
  | { type: 'trajectory'; record: TrajectoryRecord }
  | { type: 'session_start'; entry: SessionIndexStart }
  | { type: 'session_end'; end: SessionIndexEnd }
  | { type: 'usage'; record: UsageRecord };

/** One session_index row: one turn (trace) of a session. */
export interface SessionIndexRow {
  traceId: string;
  sessionKey: string;
  agentId: string;
  channel: string;
  messageId: string | null;
  rootRunId: string | null;
  endReason: string | null;
  degraded: boolean;
  startedAt: number;
  endedAt: number | null;
  /** The UTC day (YYYY-MM-DD) the turn started. */
  day: string;
  isSynthetic: boolean;
}

/** A trajectory record with the agent of the turn it belongs to. */
export interface AgentTrajectory extends StoredTrajectory {
  agentId: string;
}

/** One durable run as the reports read it. */
export interface EvidenceRun {
  runId: string;
  rootRunId: string;
  parentKey: string | null;
  sessionKey: string;
  agentId: string;
  status: string;
  startedAt: number;
  costUsd: number | null;
}

/** A stored health signal with its data parsed (malformed JSON reads as an empty object). */
export interface StoredHealthSignal {
  id: number;
  ts: number;
  kind: string;
  agentId: string | null;
  rootRunId: string | null;
  severity: string;
  data: Record<string, unknown>;
}

/** Token usage of one agent, provider and model, summed. */
export interface AgentUsageGroup {
  agentId: string;
  provider: string;
  model: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  costUsd: number;
}

/** At most `limit` rows; `total` counts every matching row (equal to rows.length unless the limit cut the list). */
export interface Capped<T> {
  rows: T[];
  total: number;
}

/** A time window, both ends inclusive, in epoch milliseconds. */
export interface Window {
  sinceMs: number;
  untilMs: number;
}

export type TraceTextField =
  'agentId' | 'channel' | 'endReason' | 'sessionKey' | 'traceId' | 'messageId' | 'rootRunId' | 'day';
export type TraceFlagField = 'degraded' | 'synthetic';

/** One condition of a trace search: `!=` keeps rows whose value is absent; `~` means "contains"; a null value means absent. */
export type TraceCondition =
  | { field: TraceTextField; op: '=' | '!='; value: string | null }
  | { field: TraceTextField; op: '~'; value: string }
  | { field: TraceFlagField; op: '=' | '!='; value: boolean };

export interface TraceFilter {
  /** The UTC days (YYYY-MM-DD) read. */
  days: readonly string[];
  traceId?: string;
  /** Resolved first to the newest turn of `days` carrying it; a traceId that differs from it matches nothing. */
  messageId?: string;
  /** A session key, or a channel name. */
  chatId?: string;
  /** Turns started at or after this time. */
  sinceMs?: number;
  includeSynthetic: boolean;
  /** All must hold. */
  conditions?: readonly TraceCondition[];
  limit: number;
}

export interface EvidencePort {
  /**
   * Writes the batch in order, all or nothing. A `turn` write replaces the turn's row (its steps included), so an open
   * turn written at one flush is rewritten whole when it ends. A trajectory record's `seq` is its place in its session
   * when read: turns in start order, each turn's steps in order, records outside any turn's row merged by time.
   */
  append(batch: readonly EvidenceWrite[]): Promise<void>;
  /** A session's trajectory in seq order; with `newest`, only that many of its newest records (still in seq order). */
  trajectoryOf(sessionKey: string, options?: { newest?: number }, signal?: AbortSignal): Promise<StoredTrajectory[]>;
  trajectoryCountOf(sessionKey: string, signal?: AbortSignal): Promise<number>;
  /** The newest `newest` records of one kind (of one agent's turns when given), oldest first; records of unindexed turns are left out. */
  trajectoryOfKind(
    filter: { kind: string; agentId?: string; newest: number },
    signal?: AbortSignal,
  ): Promise<AgentTrajectory[]>;
  /** The session of a turn: from the session index, else from its trajectory. */
  sessionKeyOfTrace(traceId: string, signal?: AbortSignal): Promise<string | undefined>;
  /** The session of a root run: the earliest indexed turn carrying it, else the run's own session. */
  sessionKeyOfRoot(rootRunId: string, signal?: AbortSignal): Promise<string | undefined>;
  /** A session's turns, oldest first (started_at, then traceId). */
  sessionIndexOf(sessionKey: string, signal?: AbortSignal): Promise<SessionIndexRow[]>;
  /** The root run of the earliest run the session ran or spawned. */
  rootRunOfSession(sessionKey: string, signal?: AbortSignal): Promise<string | undefined>;
  /** The runs of one spawn tree, oldest first (started_at, then runId). */
  runsOfRoot(rootRunId: string, limit: number, signal?: AbortSignal): Promise<EvidenceRun[]>;
  /** Turns of `days` that pass the filter, newest first (day, started_at, traceId descending). */
  searchTraces(filter: TraceFilter, signal?: AbortSignal): Promise<SessionIndexRow[]>;
  /** Turns started in the window, oldest first (started_at, then traceId). */
  sessionIndexIn(
    filter: Window & { includeSynthetic: boolean; limit: number },
    signal?: AbortSignal,
  ): Promise<Capped<SessionIndexRow>>;
  /** Trajectory records of the given kinds from turns started in the window, in read order (turns by start, then steps). */
  trajectoryOfTurnsIn(
    filter: Window & { includeSynthetic: boolean; kinds: readonly string[]; limit: number },
    signal?: AbortSignal,
  ): Promise<Capped<StoredTrajectory>>;
  /** Token usage recorded in the window, per agent, provider and model (ordered by them). */
  usageByAgent(window: Window, signal?: AbortSignal): Promise<AgentUsageGroup[]>;
  /** Health signals in the window, oldest first (ts, then id), optionally without one kind. */
  healthSignalsIn(
    filter: Window & { excludeKind?: string; limit: number },
    signal?: AbortSignal,
  ): Promise<Capped<StoredHealthSignal>>;
  /** The newest health signal of a kind at or before the time. */
  latestHealthSignal(
    filter: { kind: string; atOrBeforeMs: number },
    signal?: AbortSignal,
  ): Promise<StoredHealthSignal | undefined>;
  /** Runs started in the window, oldest first (started_at, then runId). */
  runsStartedIn(filter: Window & { limit: number }, signal?: AbortSignal): Promise<Capped<EvidenceRun>>;
}
