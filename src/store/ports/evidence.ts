// The evidence port: counts-only turn evidence (trajectory, session index, token usage), appended in batches.

/** One trajectory record: a kind and a small data object of counts, ids and enums; never message bodies. */
export interface TrajectoryRecord {
  sessionKey: string;
  traceId: string;
  kind: string;
  ts: number;
  data: Record<string, unknown>;
}

/** A stored trajectory record with the sequence number the store gave it. */
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

export type EvidenceWrite =
  | { type: 'trajectory'; record: TrajectoryRecord }
  | { type: 'session_start'; entry: SessionIndexStart }
  | { type: 'session_end'; end: SessionIndexEnd }
  | { type: 'usage'; record: UsageRecord };

export interface EvidencePort {
  /**
   * Writes the batch in order, all or nothing. Each trajectory record gets the next `seq` of its session (1, 2, 3 …
   * in append order), allocated by the store so that writers sharing it never hand out the same number twice.
   */
  append(batch: readonly EvidenceWrite[]): Promise<void>;
  /** A session's trajectory in seq order. */
  trajectoryOf(sessionKey: string, signal?: AbortSignal): Promise<StoredTrajectory[]>;
}
