// obs.trace.get's answer: a pure function from one turn's recorded evidence to its waterfall of spans (no clock, no I/O).
import { TRAJECTORY_KIND } from './evidence/kinds.js';
import { bool, count, num, optNum, round, str } from './evidence/read.js';
import type { SessionIndexEvidence, TrajectoryEvidence } from './evidence/records.js';

/** Spans answered at most; a turn past it says `truncated: true` and `spanCount` keeps the full number. */
export const TRACE_MAX_SPANS = 500;

/** What every span has; `startOffsetMs` is from the turn's start, `durationMs` null when the evidence has no duration. */
interface SpanBase {
  startOffsetMs: number;
  durationMs: number | null;
  /** ok, error, the model's finish reason, an approval's decision, a drive's event. */
  outcome: string;
  /** The turn's model step (0-based) the span belongs to, when recorded. */
  step: number | null;
}

export type TraceSpan =
  | (SpanBase & {
      kind: 'model';
      /** provider/model */
      name: string;
      provider: string;
      model: string;
      /** Time to first token, when the call recorded it. */
      ttftMs: number | null;
      inputTokens: number;
      outputTokens: number;
      cacheReadTokens: number;
      costUsd: number;
    })
  | (SpanBase & { kind: 'model_error'; name: string; errorKind: string })
  | (SpanBase & { kind: 'tool'; name: string; errorKind: string | null })
  | (SpanBase & {
      kind: 'approval';
      /** The gated tool. */
      name: string;
      requestId: string;
      resolvedBy: string | null;
      reason: string | null;
    })
  | (SpanBase & { kind: 'orchestrate'; name: string; runId: string; exitCode: number; toolCalls: number })
  | (SpanBase & { kind: 'terminal'; name: string; driveId: string });

/** An approval request of the turn, as the ApprovalPort stores it. */
export interface TraceApproval {
  id: string;
  toolName: string;
  status: string;
  requestedAt: number;
  resolvedAt: number | null;
  resolvedBy: string | null;
  reason: string | null;
}

export interface TraceWaterfall {
  traceId: string;
  sessionKey: string;
  agentId: string;
  channel: string;
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  /** null while the turn runs. */
  endReason: string | null;
  degraded: boolean;
  totals: {
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
    modelCalls: number;
    toolCalls: number;
    toolFailures: number;
  };
  spans: TraceSpan[];
  /** Spans of the whole turn; more than spans.length when truncated. */
  spanCount: number;
  truncated: boolean;
  spanCap: number;
  /** The turn's own record cap was hit when it was written: records past it were never stored. */
  stepsCapped: boolean;
}

const startOf = (turnStart: number, endTs: number, durationMs: number | null): number =>
  Math.max(0, endTs - (durationMs ?? 0) - turnStart);

const stepOf = (data: Record<string, unknown>): number | null => optNum(data.step) ?? null;

function terminalSpan(record: TrajectoryEvidence, turnStart: number): TraceSpan | undefined {
  const events: Record<string, string> = {
    [TRAJECTORY_KIND.terminalDriveInput]: 'input',
    [TRAJECTORY_KIND.terminalDrivePromoted]: 'promoted',
    [TRAJECTORY_KIND.terminalSessionEvicted]: 'evicted',
    [TRAJECTORY_KIND.terminalDriveClosed]: 'closed',
  };
  const event = events[record.kind];
  if (event === undefined) return undefined;
  const durationMs = optNum(record.data.durationMs) ?? null;
  const driveId = str(record.data.driveId) ?? 'unknown';
  return {
    kind: 'terminal',
    name: `terminal ${event}`,
    driveId,
    startOffsetMs: startOf(turnStart, record.ts, durationMs),
    durationMs,
    outcome: str(record.data.reason) ?? event,
    step: null,
  };
}

function spanOf(
  record: TrajectoryEvidence,
  turnStart: number,
  auditedByRun: Map<string, number>,
): TraceSpan | undefined {
  const { data } = record;
  switch (record.kind) {
    case TRAJECTORY_KIND.modelCall: {
      const latencyMs = optNum(data.latencyMs) ?? null;
      const provider = str(data.provider) ?? 'unknown';
      const model = str(data.model) ?? 'unknown';
      return {
        kind: 'model',
        name: `${provider}/${model}`,
        provider,
        model,
        startOffsetMs: startOf(turnStart, record.ts, latencyMs),
        durationMs: latencyMs,
        ttftMs: optNum(data.ttftMs) ?? null,
        inputTokens: count(data.inputTokens),
        outputTokens: count(data.outputTokens),
        cacheReadTokens: count(data.cacheReadTokens),
        costUsd: num(data.costUsd),
        outcome: str(data.finishReason) ?? 'unknown',
        step: stepOf(data),
      };
    }
    case TRAJECTORY_KIND.modelError:
      return {
        kind: 'model_error',
        name: 'model call failed',
        errorKind: str(data.errorKind) ?? 'unknown',
        startOffsetMs: startOf(turnStart, record.ts, null),
        durationMs: null,
        outcome: 'error',
        step: stepOf(data),
      };
    case TRAJECTORY_KIND.toolCall: {
      const durationMs = optNum(data.durationMs) ?? null;
      return {
        kind: 'tool',
        name: str(data.toolName) ?? 'unknown',
        errorKind: str(data.errorKind) ?? null,
        startOffsetMs: startOf(turnStart, record.ts, durationMs),
        durationMs,
        outcome: bool(data.ok) === false ? 'error' : 'ok',
        step: stepOf(data),
      };
    }
    case TRAJECTORY_KIND.orchestrateRun: {
      const durationMs = optNum(data.durationMs) ?? null;
      const runId = str(data.runId) ?? 'unknown';
      const exitCode = num(data.exitCode);
      return {
        kind: 'orchestrate',
        name: 'orchestrate run',
        runId,
        exitCode,
        toolCalls: auditedByRun.get(str(data.leaseId) ?? runId) ?? 0,
        startOffsetMs: startOf(turnStart, record.ts, durationMs),
        durationMs,
        outcome: exitCode === 0 ? 'ok' : (str(data.failureClass) ?? 'error'),
        step: null,
      };
    }
    default:
      return terminalSpan(record, turnStart);
  }
}

function approvalSpan(request: TraceApproval, turnStart: number): TraceSpan {
  return {
    kind: 'approval',
    name: request.toolName,
    requestId: request.id,
    startOffsetMs: Math.max(0, request.requestedAt - turnStart),
    durationMs: request.resolvedAt === null ? null : Math.max(0, request.resolvedAt - request.requestedAt),
    outcome: request.status,
    resolvedBy: request.resolvedBy,
    reason: request.reason,
    step: null,
  };
}

/** `records` are the turn's trajectory records in order; `approvals` the requests it made. */
export function assembleTraceWaterfall(
  turn: SessionIndexEvidence,
  records: readonly TrajectoryEvidence[],
  approvals: readonly TraceApproval[],
): TraceWaterfall {
  const turnStart = turn.startedAt;
  const auditedByRun = new Map<string, number>();
  for (const record of records) {
    if (record.kind !== TRAJECTORY_KIND.capabilityAudited) continue;
    const run = str(record.data.leaseId) ?? str(record.data.runId);
    if (run !== undefined) auditedByRun.set(run, (auditedByRun.get(run) ?? 0) + 1);
  }
  const spans = [
    ...records.flatMap((record) => spanOf(record, turnStart, auditedByRun) ?? []),
    ...approvals.map((request) => approvalSpan(request, turnStart)),
  ];
  // Stable: spans starting together keep their record order.
  spans.sort((a, b) => a.startOffsetMs - b.startOffsetMs);
  const end = records.findLast((record) => record.kind === TRAJECTORY_KIND.turnEnd);
  const models = spans.filter((span) => span.kind === 'model');
  const tools = spans.filter((span) => span.kind === 'tool');
  const endedAt = turn.endedAt ?? end?.ts ?? null;
  return {
    traceId: turn.traceId,
    sessionKey: turn.sessionKey,
    agentId: turn.agentId,
    channel: turn.channel,
    startedAt: turnStart,
    endedAt,
    durationMs: endedAt === null ? null : Math.max(0, endedAt - turnStart),
    endReason: turn.endReason ?? str(end?.data.endReason) ?? null,
    degraded: turn.degraded,
    totals: {
      inputTokens: models.reduce((sum, span) => sum + span.inputTokens, 0),
      outputTokens: models.reduce((sum, span) => sum + span.outputTokens, 0),
      costUsd: round(
        models.reduce((sum, span) => sum + span.costUsd, 0),
        10,
      ),
      modelCalls: models.length,
      toolCalls: tools.length,
      toolFailures: tools.filter((span) => span.outcome === 'error').length,
    },
    spans: spans.slice(0, TRACE_MAX_SPANS),
    spanCount: spans.length,
    truncated: spans.length > TRACE_MAX_SPANS,
    spanCap: TRACE_MAX_SPANS,
    stepsCapped: records.some((record) => record.kind === TRAJECTORY_KIND.stepsCapped),
  };
}
