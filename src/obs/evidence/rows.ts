// The EvidencePort's rows as the report assemblers' evidence records.
import type { AgentUsageGroup, EvidenceRun, StoredHealthSignal, StoredTrajectory } from '../../store/index.js';
import { num } from './read.js';
import type { HealthSignalEvidence, RunEvidence, TrajectoryEvidence, UsageEvidence } from './records.js';

export const toTrajectoryEvidence = (record: StoredTrajectory): TrajectoryEvidence => ({
  seq: record.seq,
  ts: record.ts,
  traceId: record.traceId,
  kind: record.kind,
  data: record.data,
});

export const toRunEvidence = (run: EvidenceRun): RunEvidence => ({
  runId: run.runId,
  rootRunId: run.rootRunId,
  parentKey: run.parentKey,
  sessionKey: run.sessionKey,
  agentId: run.agentId,
  status: run.status,
  startedAt: run.startedAt,
  costUsd: num(run.costUsd),
});

export const toSignalEvidence = (signal: StoredHealthSignal): HealthSignalEvidence => ({
  id: signal.id,
  ts: signal.ts,
  kind: signal.kind,
  agentId: signal.agentId,
  rootRunId: signal.rootRunId,
  severity: signal.severity,
  data: signal.data,
});

export const toUsageEvidence = (group: AgentUsageGroup): UsageEvidence => ({
  agentId: group.agentId,
  provider: group.provider,
  model: group.model,
  calls: group.calls,
  inputTokens: num(group.inputTokens),
  outputTokens: num(group.outputTokens),
  cacheReadTokens: num(group.cacheReadTokens),
  costUsd: num(group.costUsd),
});
