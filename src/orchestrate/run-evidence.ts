// An orchestrate run's evidence: capability_audited records per decision, the orchestrate_run record, the
// orchestrate_run_summary health signal, and the savings estimate (characters / 4, the gateway's estimator).
import { SIGNAL_KIND, TRAJECTORY_KIND, type HealthSignalRecorder, type Recorder } from '../obs/index.js';
import type { DenyReason } from './lease.js';
import type { ScriptFailureClass } from './sandbox/index.js';

/** What the reports group toolCalls by; `approval`: the call waited for an operator (its outcome is a second record). */
export type AuditDecision = 'allow' | 'deny' | 'approval';

/** The sandbox's failure classes, and `lease_absent`: a run without a lease that tried to call a tool. */
export type RunFailureClass = ScriptFailureClass | 'lease_absent';

/** Where a run's evidence goes: the turn's trajectory (its trace and session) and the fleet's signals. */
export interface RunEvidenceTarget {
  recorder: Recorder;
  signals?: HealthSignalRecorder;
  now: () => number;
  sessionKey: string;
  traceId: string;
  agentId: string;
  rootRunId: string;
  runId: string;
  /** Absent for a run that got no lease (no capability was granted). */
  leaseId?: string;
}

export interface RunTally {
  /** Per tool and decision, in first-seen order: what the model is told. */
  decisions: Map<string, { tool: string; decision: AuditDecision; count: number }>;
  /** Tool results that stayed inside the script. */
  results: number;
  resultBytes: number;
  resultChars: number;
}

export const emptyTally = (): RunTally => ({ decisions: new Map(), results: 0, resultBytes: 0, resultChars: 0 });

/** Records one decision (capability_audited) and counts it for the model's toolCalls. */
export function auditDecision(
  target: RunEvidenceTarget,
  tally: RunTally,
  call: { tool: string; decision: AuditDecision; reason?: DenyReason },
): void {
  const key = `${call.tool}\u0000${call.decision}`;
  const entry = tally.decisions.get(key) ?? { tool: call.tool, decision: call.decision, count: 0 };
  entry.count += 1;
  tally.decisions.set(key, entry);
  target.recorder.trajectory({
    sessionKey: target.sessionKey,
    traceId: target.traceId,
    kind: TRAJECTORY_KIND.capabilityAudited,
    ts: target.now(),
    data: {
      ...(target.leaseId === undefined ? { runId: target.runId } : { leaseId: target.leaseId }),
      tool: call.tool,
      capability: call.tool,
      decision: call.decision,
      ...(call.reason === undefined ? {} : { reason: call.reason }),
    },
  });
}

export interface Savings {
  estSavedTokens: number;
  savedRatio: number;
}

/** Estimated tokens of the results that stayed in the script minus those of what the model got back, and their ratio. */
export function savingsOf(tally: RunTally, returnedChars: number): Savings {
  const resultTokens = Math.ceil(tally.resultChars / 4);
  const estSavedTokens = Math.max(0, resultTokens - Math.ceil(returnedChars / 4));
  return {
    estSavedTokens,
    savedRatio: resultTokens === 0 ? 0 : Math.round((estSavedTokens / resultTokens) * 10_000) / 10_000,
  };
}

/** The orchestrate_run record of the turn and the orchestrate_run_summary signal of the fleet. */
export function recordRun(
  target: RunEvidenceTarget,
  tally: RunTally,
  run: { exitCode: number; durationMs: number; failureClass?: RunFailureClass; savings: Savings },
): void {
  target.recorder.trajectory({
    sessionKey: target.sessionKey,
    traceId: target.traceId,
    kind: TRAJECTORY_KIND.orchestrateRun,
    ts: target.now(),
    data: {
      runId: target.runId,
      ...(target.leaseId === undefined ? {} : { leaseId: target.leaseId }),
      exitCode: run.exitCode,
      durationMs: run.durationMs,
      ...(run.failureClass === undefined ? {} : { failureClass: run.failureClass }),
      resultRefs: { count: tally.results, bytes: tally.resultBytes },
      savings: run.savings,
    },
  });
  target.signals?.record({
    kind: SIGNAL_KIND.orchestrateRunSummary,
    agentId: target.agentId,
    rootRunId: target.rootRunId,
    severity: 'info',
    data: { runId: target.runId, exitCode: run.exitCode, estSavedTokens: run.savings.estSavedTokens },
  });
}
