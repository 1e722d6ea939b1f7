// obs.explain's report: a pure function from one session's recorded evidence to an IncidentReport (no clock, no I/O).
import { TRAJECTORY_KIND, type Severity } from '../evidence/kinds.js';
import { isDegradedEnding } from '../evidence/endings.js';
import { ORPHANED_END_REASON, orphanedSessions } from '../evidence/orphans.js';
import { compareText, count, round, sortedObject, str } from '../evidence/read.js';
import type { SessionEvidence, SessionIndexEvidence, TrajectoryEvidence } from '../evidence/records.js';
import {
  contextBudgetBlock,
  cronWakeGateBlock,
  learningBlock,
  orchestrateEntries,
  recallBlock,
  voiceBlock,
} from './blocks.js';
import { boundReport } from './bound.js';
import { collectModelFailures } from './model-evidence.js';
import { likelyRootCause } from './root-cause.js';
import { spawnTree } from './spawn-tree.js';
import { collectToolEvidence, reconcileRollup } from './tool-evidence.js';
import type { CoverageBlock, ExplainDepth, FailureEntry, IncidentReport, RootCause, Truncation } from './types.js';

export interface ExplainOptions {
  depth?: ExplainDepth;
}

/** Endings the operator must act on; every other degraded ending is a warning. */
const ERROR_ENDINGS: ReadonlySet<string> = new Set([
  'error',
  'context_exhausted',
  'timeout',
  'circuit_open',
  'unknown',
  ORPHANED_END_REASON,
]);

function severityOf(endReason: string, degraded: boolean): Severity {
  if (!degraded) return 'info';
  return ERROR_ENDINGS.has(endReason) ? 'error' : 'warning';
}

const byTurnOrder = (a: SessionIndexEvidence, b: SessionIndexEvidence) =>
  a.startedAt - b.startedAt || compareText(a.traceId, b.traceId);

/**
 * The last turn decides the outcome: its turn_end record, else its index row. A turn with neither is still running,
 * unless a restart marked the session's durable run orphaned: then the process that ran it is gone and it never will end.
 */
function outcomeOf(
  evidence: SessionEvidence,
  records: readonly TrajectoryEvidence[],
  latest: SessionIndexEvidence | undefined,
): { endReason: string; degraded: boolean } {
  const lastEnd = records.filter((record) => record.kind === TRAJECTORY_KIND.turnEnd).at(-1);
  const lastStart = records.filter((record) => record.kind === TRAJECTORY_KIND.turnStart).at(-1);
  const isLastTurnOpen = lastStart !== undefined && (lastEnd === undefined || lastStart.seq > lastEnd.seq);
  const endReason = isLastTurnOpen ? undefined : (str(lastEnd?.data.endReason) ?? latest?.endReason ?? undefined);
  if (endReason !== undefined) return { endReason, degraded: isDegradedEnding(endReason) };
  if (orphanedSessions(evidence.runs).has(evidence.sessionKey))
    return { endReason: ORPHANED_END_REASON, degraded: true };
  return { endReason: 'in_progress', degraded: false };
}

function costOf(records: readonly TrajectoryEvidence[]): IncidentReport['cost'] {
  let costUsd = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let cacheReadTokens = 0;
  const calls = records.filter((record) => record.kind === TRAJECTORY_KIND.modelCall);
  // Model calls carry the cache split; sessions recorded without them fall back to the turn totals.
  const source = calls.length > 0 ? calls : records.filter((record) => record.kind === TRAJECTORY_KIND.turnEnd);
  for (const { data } of source) {
    costUsd += count(data.costUsd);
    inputTokens += count(data.inputTokens);
    outputTokens += count(data.outputTokens);
    cacheReadTokens += count(data.cacheReadTokens);
  }
  return {
    costUsd: round(costUsd, 6),
    totalTokens: inputTokens + outputTokens,
    cacheReadRatio: inputTokens === 0 ? 0 : round(cacheReadTokens / inputTokens, 4),
  };
}

function summaryOf(
  report: Omit<IncidentReport, 'summary'>,
  counts: { toolCalls: number; toolFailures: number; modelFailures: number },
): string {
  const turns = `${report.timing.turnCount} turn${report.timing.turnCount === 1 ? '' : 's'}`;
  const tools =
    counts.toolCalls === 0 ? 'no tool calls' : `${counts.toolFailures} of ${counts.toolCalls} tool call(s) failed`;
  const models = counts.modelFailures === 0 ? '' : `; ${counts.modelFailures} model call(s) failed`;
  return (
    `Session ${report.sessionKey} (agent ${report.agentId ?? 'unknown'}, channel ${report.channel ?? 'unknown'}): ${turns}, ended ${report.outcome.endReason}; ${tools}${models}; ` +
    `${report.cost.totalTokens} tokens, $${report.cost.costUsd}. Likely cause: ${report.likelyRootCause.code}.`
  );
}

/** Tool and model failures in one list, newest first (both lists are); a model call's entries keep their own order. */
function mergeNewestFirst(tools: readonly FailureEntry[], models: readonly FailureEntry[]): FailureEntry[] {
  const merged: FailureEntry[] = [];
  let t = 0;
  let m = 0;
  while (t < tools.length || m < models.length) {
    const tool = tools[t];
    const model = models[m];
    if (model === undefined || (tool !== undefined && tool.seq > model.seq)) {
      if (tool !== undefined) merged.push(tool);
      t += 1;
    } else {
      merged.push(model);
      m += 1;
    }
  }
  return merged;
}

function nextSteps(cause: RootCause, breakerOpened: boolean, isReconciled: boolean): string[] {
  const steps = [...cause.suggestedNextSteps];
  if (breakerOpened)
    steps.push('A circuit breaker opened: check provider health (provider:degraded events) before retrying.');
  if (!isReconciled)
    steps.push('The persisted tool rollup exceeds the trajectory: treat rollup counts as unreliable for this session.');
  return [...new Set(steps)];
}

/** Builds the report; the same evidence always gives byte-identical JSON. */
export function assembleIncidentReport(evidence: SessionEvidence, options: ExplainOptions = {}): IncidentReport {
  const records = [...evidence.trajectory].sort((a, b) => a.seq - b.seq || a.ts - b.ts || compareText(a.kind, b.kind));
  const turns = [...evidence.index].sort(byTurnOrder);
  const latest = turns.at(-1);
  const lastStart = records.filter((record) => record.kind === TRAJECTORY_KIND.turnStart).at(-1);
  const { endReason, degraded } = outcomeOf(evidence, records, latest);

  const tools = collectToolEvidence(records);
  const modelFailures = collectModelFailures(records);
  const reconciliation = reconcileRollup(records, tools.stats);
  const contextBudget = contextBudgetBlock(records, endReason);
  const recall = recallBlock(records);
  const voice = voiceBlock(records);
  const learning = learningBlock(records);
  const orchestrate = orchestrateEntries(records);
  const cronWakeGate = cronWakeGateBlock(records);
  const cause = likelyRootCause({ records, endReason, degraded, tools, contextBudget, recall, learning, orchestrate });
  const turnStarts = records.filter((record) => record.kind === TRAJECTORY_KIND.turnStart).length;
  const durationMs = records
    .filter((record) => record.kind === TRAJECTORY_KIND.turnEnd)
    .reduce((sum, record) => sum + count(record.data.durationMs), 0);
  const offloadsResolved = tools.offloads.filter((offload) => offload.resolved).length;

  const coverage: CoverageBlock = {
    trajectory: { found: records.length > 0, records: records.length },
    rollup: { present: reconciliation.present },
    offloads: { pointersResolved: offloadsResolved, pointersTotal: tools.offloads.length },
    sources: evidence.sources,
    toolStats: {
      reconciled: reconciliation.reconciled,
      rollupSource: reconciliation.rollupSource,
      divergentTools: reconciliation.divergentTools,
    },
  };
  const truncations: Truncation[] =
    evidence.trajectoryCap === undefined ? [] : [{ field: 'trajectory', ...evidence.trajectoryCap }];
  const tree = spawnTree(evidence.runs, evidence.sessionKey, latest?.rootRunId ?? null);

  const body: Omit<IncidentReport, 'summary'> = {
    schemaVersion: 1,
    sessionKey: evidence.sessionKey,
    traceId: latest?.traceId ?? records.at(-1)?.traceId ?? null,
    agentId: latest?.agentId ?? str(lastStart?.data.agentId) ?? null,
    channel: latest?.channel ?? str(lastStart?.data.channel) ?? null,
    outcome: { endReason, degraded, severity: severityOf(endReason, degraded) },
    cost: costOf(records),
    timing: { durationMs, turnCount: Math.max(turnStarts, turns.length) },
    toolStats: sortedObject(tools.stats),
    failures: mergeNewestFirst(tools.failures, modelFailures),
    breakerTimeline: tools.breakerTimeline,
    offloads: tools.offloads,
    likelyRootCause: cause,
    suggestedNextSteps: nextSteps(
      cause,
      tools.breakerTimeline.some((entry) => entry.event === 'opened'),
      reconciliation.reconciled,
    ),
    truncations,
    ...(contextBudget === undefined ? {} : { contextBudget }),
    ...(recall === undefined ? {} : { recall }),
    ...(voice === undefined ? {} : { voice }),
    ...(learning === undefined ? {} : { learning }),
    ...(orchestrate === undefined ? {} : { orchestrate }),
    ...(cronWakeGate === undefined ? {} : { cronWakeGate }),
    coverage,
    ...(tree === undefined ? {} : { spawnTree: tree }),
  };
  // The summary names counts from the whole evidence, so it is written before bounding trims the arrays.
  const report: IncidentReport = {
    ...body,
    summary: summaryOf(body, {
      toolCalls: tools.totalCalls,
      toolFailures: tools.failures.length,
      modelFailures: modelFailures.length,
    }),
  };
  return boundReport(orderKeys(report), options.depth ?? 'summary');
}

/** The spec's field order, so the JSON reads top-down: identity, outcome, numbers, evidence, verdict, blocks. */
function orderKeys(report: IncidentReport): IncidentReport {
  const {
    schemaVersion,
    sessionKey,
    traceId,
    agentId,
    channel,
    outcome,
    cost,
    timing,
    toolStats,
    failures,
    breakerTimeline,
    offloads,
    summary,
    likelyRootCause: cause,
    suggestedNextSteps,
    truncations,
    ...blocks
  } = report;
  return {
    schemaVersion,
    sessionKey,
    traceId,
    agentId,
    channel,
    outcome,
    cost,
    timing,
    toolStats,
    failures,
    breakerTimeline,
    offloads,
    summary,
    likelyRootCause: cause,
    suggestedNextSteps,
    truncations,
    ...blocks,
  };
}
