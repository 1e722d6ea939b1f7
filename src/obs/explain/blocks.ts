// The IncidentReport's optional blocks (contextBudget, recall, voice, learning, orchestrate, cronWakeGate), each with its presence rule.
import {
  BUDGET_VERDICTS,
  CAPABILITY_DECISIONS,
  LEARNING_OUTCOMES,
  LEARNING_SOURCES,
  ORCHESTRATE_FAILURE_CLASSES,
  TRAJECTORY_KIND,
  VOICE_ERROR_KINDS,
  VOICE_OUTCOMES,
  VOICE_SOURCES,
  WINDOW_CAP_SOURCES,
} from '../evidence/kinds.js';
import { bool, compareText, count, isRecord, num, oneOf, optNum, round, str } from '../evidence/read.js';
import type { TrajectoryEvidence } from '../evidence/records.js';
import type {
  ContextBudgetBlock,
  CronWakeGateBlock,
  LearningBlock,
  OrchestrateEntry,
  RecallBlock,
  VoiceBlock,
} from './types.js';

const ofKind = (records: readonly TrajectoryEvidence[], kind: string) =>
  records.filter((record) => record.kind === kind);

/** Present when the run ended context_exhausted and budget records exist; the last record wins. */
export function contextBudgetBlock(
  records: readonly TrajectoryEvidence[],
  endReason: string,
): ContextBudgetBlock | undefined {
  if (endReason !== 'context_exhausted') return undefined;
  const last = ofKind(records, TRAJECTORY_KIND.contextBudget).at(-1);
  if (last === undefined) return undefined;
  const { data } = last;
  const windowTokens = count(data.windowTokens);
  return {
    windowTokens,
    // The turn loop does not record a separate raw window yet; without one the served window is the raw window.
    rawContextWindowTokens: count(data.rawContextWindowTokens ?? windowTokens),
    windowCapSource: oneOf(data.windowCapSource, WINDOW_CAP_SOURCES) ?? 'none',
    systemTokens: count(data.systemTokens),
    freshTailTokens: count(data.freshTailTokens),
    budgetedHistoryTokens: count(data.budgetedHistoryTokens),
    keptCount: count(data.keptCount),
    assembledInputTokens: count(data.assembledInputTokens),
    outputHeadroom: count(data.outputHeadroom),
    verdict: oneOf(data.verdict, BUDGET_VERDICTS) ?? 'exhausted',
  };
}

/** Present when the session ran memory recalls; counts and booleans only. */
export function recallBlock(records: readonly TrajectoryEvidence[]): RecallBlock | undefined {
  const recalls = ofKind(records, TRAJECTORY_KIND.recall);
  const last = recalls.at(-1);
  if (last === undefined) return undefined;
  let zeroHits = 0;
  let crossUserRecalls = 0;
  for (const { data } of recalls) {
    if (count(data.finalCount) === 0) zeroHits += 1;
    if (count(data.crossUserCount) > 0) crossUserRecalls += 1;
  }
  const lanes = Array.isArray(last.data.lanes) ? last.data.lanes.length : count(last.data.lanes);
  return {
    recalls: recalls.length,
    zeroHits,
    lastLanes: lanes,
    lastFinalCount: count(last.data.finalCount),
    rerankerAvailable: bool(last.data.rerankerAvailable) ?? false,
    ...(crossUserRecalls > 0 ? { crossUserRecalls, lastCrossUserCount: count(last.data.crossUserCount) } : {}),
  };
}

/**
 * Present when the session ran a transcription or synthesis; the last voice record wins. A malformed row folds
 * to zero defensively: unknown enums are dropped, numbers fall back to 0 or are omitted.
 */
export function voiceBlock(records: readonly TrajectoryEvidence[]): VoiceBlock | undefined {
  const last = ofKind(records, TRAJECTORY_KIND.voice).at(-1);
  if (last === undefined) return undefined;
  const { data } = last;
  const keyless = bool(data.keyless) ?? false;
  const model = str(data.model);
  const durationMs = optNum(data.durationMs);
  const source = oneOf(data.source, VOICE_SOURCES);
  const errorKind = oneOf(data.errorKind, VOICE_ERROR_KINDS);
  // Folding to zero: an unreadable outcome counts as no failure unless a known errorKind says otherwise.
  const outcome = oneOf(data.outcome, VOICE_OUTCOMES) ?? (errorKind === undefined ? 'ok' : 'failed');
  return {
    provider: str(data.provider) ?? 'unknown',
    keyless,
    ...(model === undefined ? {} : { model }),
    ...(durationMs === undefined ? {} : { durationMs: Math.max(0, durationMs) }),
    // Spec: costUsd is 0 for a keyless turn and omitted for a keyed turn.
    ...(keyless ? { costUsd: 0 } : {}),
    ...(source === undefined ? {} : { source }),
    outcome,
    ...(outcome === 'failed' && errorKind !== undefined ? { errorKind } : {}),
  };
}

const LEARNING_KINDS: readonly string[] = [
  TRAJECTORY_KIND.learningOutcome,
  TRAJECTORY_KIND.learningSkill,
  TRAJECTORY_KIND.learningSynthesis,
  TRAJECTORY_KIND.learningLifecycle,
];

/** Present when learning records exist. outcomeResolved is false when no record carried an outcome (an explicit unknown resolves). */
export function learningBlock(records: readonly TrajectoryEvidence[]): LearningBlock | undefined {
  const learning = records.filter((record) => LEARNING_KINDS.includes(record.kind));
  if (learning.length === 0) return undefined;
  let outcome: string | undefined;
  const sources = new Set<string>();
  let skillsUsed = 0;
  let skillFailures = 0;
  let synthesisAbstained = false;
  let promoted = 0;
  let demoted = 0;
  let attributed = 0;
  let hasLifecycle = false;
  for (const { kind, data } of learning) {
    if (kind === TRAJECTORY_KIND.learningOutcome) {
      outcome = oneOf(data.outcome, LEARNING_OUTCOMES) ?? outcome;
      const listed = Array.isArray(data.sources) ? data.sources : [data.source];
      for (const source of listed) {
        const known = oneOf(source, LEARNING_SOURCES);
        if (known !== undefined) sources.add(known);
      }
    } else if (kind === TRAJECTORY_KIND.learningSkill) {
      skillsUsed += 1;
      if (data.ok !== true) skillFailures += 1;
    } else if (kind === TRAJECTORY_KIND.learningSynthesis) {
      if (data.abstained === true) synthesisAbstained = true;
    } else {
      hasLifecycle = true;
      promoted += count(data.promoted);
      demoted += count(data.demoted);
      attributed += count(data.failuresAttributed);
    }
  }
  return {
    outcomeResolved: outcome !== undefined,
    ...(outcome === undefined ? {} : { outcome }),
    sources: LEARNING_SOURCES.filter((source) => sources.has(source)),
    skillsUsed,
    skillFailures,
    synthesisAbstained,
    ...(hasLifecycle ? { skillsPromoted: promoted, skillsDemoted: demoted, failuresAttributed: attributed } : {}),
  };
}

/**
 * One entry per orchestrate_run record, oldest first. toolCalls are the capability_audited decisions carrying
 * the run's own leaseId (or, without a lease, its runId), grouped by tool, capability and decision.
 */
export function orchestrateEntries(records: readonly TrajectoryEvidence[]): OrchestrateEntry[] | undefined {
  const runs = ofKind(records, TRAJECTORY_KIND.orchestrateRun);
  if (runs.length === 0) return undefined;
  const audits = ofKind(records, TRAJECTORY_KIND.capabilityAudited);
  return runs.map(({ seq, data }) => {
    const runId = str(data.runId) ?? `seq-${seq}`;
    const leaseId = str(data.leaseId);
    const exitCode = Math.trunc(num(data.exitCode, -1));
    const groups = new Map<string, { tool: string; capability: string; decision: string; count: number }>();
    for (const audit of audits) {
      const owner =
        leaseId === undefined
          ? str(audit.data.runId) === runId && str(audit.data.leaseId) === undefined
          : str(audit.data.leaseId) === leaseId;
      if (!owner) continue;
      const tool = str(audit.data.tool) ?? 'unknown';
      const capability = str(audit.data.capability) ?? 'unknown';
      const decision = oneOf(audit.data.decision, CAPABILITY_DECISIONS) ?? 'deny';
      const key = `${tool}\u0000${capability}\u0000${decision}`;
      const group = groups.get(key) ?? { tool, capability, decision, count: 0 };
      group.count += Math.max(1, count(audit.data.count));
      groups.set(key, group);
    }
    const failureClass = oneOf(data.failureClass, ORCHESTRATE_FAILURE_CLASSES);
    const refs = isRecord(data.resultRefs) ? data.resultRefs : {};
    const savings = isRecord(data.savings) ? data.savings : undefined;
    return {
      runId,
      ...(leaseId === undefined ? {} : { leaseId }),
      outcome: exitCode === 0 ? 'success' : 'failure',
      durationMs: count(data.durationMs),
      exitCode,
      ...(exitCode !== 0 && failureClass !== undefined ? { failureClass } : {}),
      toolCalls: [...groups.entries()].sort(([a], [b]) => compareText(a, b)).map(([, group]) => group),
      resultRefs: { count: count(refs.count), bytes: count(refs.bytes) },
      ...(savings === undefined
        ? {}
        : {
            savings: { estSavedTokens: count(savings.estSavedTokens), savedRatio: round(count(savings.savedRatio), 4) },
          }),
    };
  });
}

/** Present when a gated scheduled fire woke the model inside this already-open session; the last such fire wins. */
export function cronWakeGateBlock(records: readonly TrajectoryEvidence[]): CronWakeGateBlock | undefined {
  const woke = ofKind(records, TRAJECTORY_KIND.cronWakeGate).filter((record) => record.data.wake === true);
  const last = woke.at(-1);
  if (last === undefined) return undefined;
  return {
    jobId: str(last.data.jobId) ?? 'unknown',
    wake: true,
    durationMs: count(last.data.durationMs),
    toolCalls: count(last.data.toolCalls),
    estTurnsSaved: count(last.data.estTurnsSaved),
  };
}
