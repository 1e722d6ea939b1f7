// likelyRootCause of one session, in the spec's precedence: terminal-drive verdicts, orchestrate, tool failures,
// degradation causes, a failed model call or unreachable storage, recall_miss, other endings, then the benign causes
// and outcome_unresolved.
import { EVICTION_REASONS, TIMEOUT_PHASES, TRAJECTORY_KIND } from '../evidence/kinds.js';
import { bool, count, oneOf, str } from '../evidence/read.js';
import type { TrajectoryEvidence } from '../evidence/records.js';
import { describeModelFailure, modelFailuresOf } from './model-evidence.js';
import type { ToolEvidence } from './tool-evidence.js';
import type { ContextBudgetBlock, LearningBlock, OrchestrateEntry, RecallBlock, RootCause } from './types.js';

export interface RootCauseInput {
  records: readonly TrajectoryEvidence[];
  endReason: string;
  degraded: boolean;
  tools: ToolEvidence;
  contextBudget: ContextBudgetBlock | undefined;
  recall: RecallBlock | undefined;
  learning: LearningBlock | undefined;
  orchestrate: OrchestrateEntry[] | undefined;
}

type Rule = (input: RootCauseInput) => RootCause | undefined;

const cause = (
  code: string,
  detail: string,
  suggestedNextSteps: string[],
  evidence?: RootCause['evidence'],
): RootCause =>
  evidence === undefined ? { code, detail, suggestedNextSteps } : { code, detail, suggestedNextSteps, evidence };

/** Rule 4: a drive promoted with at least one success that never received text. */
const terminalDriveOpenedWithoutTask: Rule = ({ records }) => {
  const sent = new Set<string>();
  for (const record of records) {
    if (record.kind === TRAJECTORY_KIND.terminalDriveInput && record.data.chars !== 0)
      sent.add(str(record.data.driveId) ?? '');
  }
  const idle = records.find(
    (record) =>
      record.kind === TRAJECTORY_KIND.terminalDrivePromoted &&
      count(record.data.successes) >= 1 &&
      !sent.has(str(record.data.driveId) ?? ''),
  );
  if (idle === undefined) return undefined;
  const driveId = str(idle.data.driveId) ?? 'unknown';
  return cause(
    'terminal_drive_opened_without_task',
    `Terminal drive ${driveId} was opened after ${count(idle.data.successes)} successful command(s), but no text was ever sent to it.`,
    [
      'Send the task text to the drive right after it is promoted, or close the drive when no task follows.',
      "Check the agent's instructions for the terminal drive workflow (promote, then send the task).",
    ],
  );
};

/** Rule 5: the reaper ended a drive on the idle or wall_clock cap (max_sessions and max_interactions never count). */
const terminalDriveEvicted: Rule = ({ records }) => {
  const evicted = records
    .filter((record) => record.kind === TRAJECTORY_KIND.terminalSessionEvicted)
    .find((record) => {
      const reason = oneOf(record.data.reason, EVICTION_REASONS);
      return reason === 'idle' || reason === 'wall_clock';
    });
  if (evicted === undefined) return undefined;
  const reason = oneOf(evicted.data.reason, EVICTION_REASONS) ?? 'idle';
  const idleMs = count(evicted.data.idleMs);
  const wasProducing = bool(evicted.data.wasProducing) ?? false;
  return cause(
    'terminal_drive_evicted',
    `The reaper ended terminal drive ${str(evicted.data.driveId) ?? 'unknown'} on its ${reason} cap after ${idleMs} ms idle${wasProducing ? ' while it was still producing output' : ''}.`,
    [
      reason === 'idle'
        ? 'Raise the terminal idle cap, or have the agent poll the drive before the cap.'
        : 'Raise the terminal wall-clock cap, or split the work into shorter drives.',
      'Read the drive output before it is reaped; evicted drives lose their buffer.',
    ],
    { reason, idleMs, wasProducing },
  );
};

/** Rule 6: an orchestrate run failed, or a capability decision denied a tool call. */
const orchestrateFailed: Rule = ({ orchestrate }) => {
  if (orchestrate === undefined) return undefined;
  const failed = orchestrate.find((run) => run.outcome === 'failure');
  if (failed !== undefined) {
    return cause(
      'orchestrate_failed',
      `Orchestrate run ${failed.runId} failed with exit code ${failed.exitCode}${failed.failureClass === undefined ? '' : ` (${failed.failureClass})`}.`,
      [
        'Read the run with its runId; check the script exit code and stdout cap.',
        'Re-run the script with a smaller scope once the cause is fixed.',
      ],
    );
  }
  for (const run of orchestrate) {
    const denied = run.toolCalls.find((call) => call.decision === 'deny');
    if (denied !== undefined) {
      return cause(
        'orchestrate_failed',
        `Orchestrate run ${run.runId} was denied ${denied.tool} (${denied.capability}) ${denied.count} time(s).`,
        [`Grant the ${denied.capability} capability to the run's lease, or remove ${denied.tool} from the script.`],
      );
    }
  }
  return undefined;
};

/** Rule 1: a tool failure explains a degraded session better than its terminal state. */
const toolFailure: Rule = ({ tools, degraded, endReason }) => {
  if (!degraded || tools.failures.length === 0) return undefined;
  const failed = tools.failures.length;
  const worst = [...tools.stats.entries()].sort(
    ([a, x], [b, y]) => y.failed - x.failed || (a < b ? -1 : a > b ? 1 : 0),
  )[0];
  const where = worst === undefined ? '' : `; most failures in ${worst[0]} (${worst[1].topErrorKind ?? 'failed'})`;
  if (tools.isHeuristicOnly) {
    return cause(
      'content_heuristic_misclassification',
      `All ${failed} failed tool call(s) were classified failed by a content heuristic, not by the tool itself${where}.`,
      [
        'Check the tool output against the heuristic; the tool may have succeeded.',
        'Tighten or disable the content heuristic for this tool.',
      ],
    );
  }
  const code = endReason === 'completed_with_tool_errors' ? 'completed_with_tool_errors' : 'tool_failure';
  return cause(code, `${failed} of ${tools.totalCalls} tool call(s) failed${where}; the session ended ${endReason}.`, [
    'Look at failures[] for the failing tool, its errorKind and its result fingerprint.',
    'Fix the tool input or configuration, or raise the tool timeout when the errorKind is timeout.',
  ]);
};

const contextExhausted: Rule = ({ endReason, contextBudget }) => {
  if (endReason !== 'context_exhausted') return undefined;
  const numbers =
    contextBudget === undefined
      ? ''
      : `: ${contextBudget.assembledInputTokens} input tokens plus ${contextBudget.outputHeadroom} output headroom exceed the ${contextBudget.windowTokens}-token window`;
  return cause('context_exhausted', `The context-window pre-flight guard aborted the run${numbers}.`, [
    'Shorten the system prompt or the message, or compact the session (session.compact).',
    'Use a model with a larger context window.',
  ]);
};

const outputStarved: Rule = ({ endReason }) =>
  endReason !== 'output_starved'
    ? undefined
    : cause('output_starved', "The final answer was truncated at the model's maximum output tokens.", [
        "Raise the model's maxTokens in the provider catalogue.",
        'Ask for a shorter answer, or split the task into steps.',
      ]);

/** The last model_error of the session, when the turn failed on one. */
const lastModelError = (records: readonly TrajectoryEvidence[]) =>
  records.filter((record) => record.kind === TRAJECTORY_KIND.modelError).at(-1);

/**
 * A turn that failed because its model call hit the provider's timeoutMs ended on a timeout too: its model_error
 * carries `providerErrorKind: 'timeout'` (or `reason: 'timeout'`).
 */
function isProviderTimeout(endReason: string, records: readonly TrajectoryEvidence[]): boolean {
  if (endReason !== 'error') return false;
  const data = lastModelError(records)?.data;
  return (
    data !== undefined &&
    (data.providerErrorKind === 'timeout' || data.reason === 'timeout' || data.errorKind === 'timeout')
  );
}

/** Rule 2: numbers-backed when the enriched prompt_timeout record exists, otherwise a generic knob suggestion. */
const promptTimeout: Rule = ({ endReason, records }) => {
  if (endReason !== 'timeout' && !isProviderTimeout(endReason, records)) return undefined;
  const enriched = records.filter((record) => record.kind === TRAJECTORY_KIND.promptTimeout).at(-1);
  if (enriched === undefined) {
    return cause(
      'prompt_timeout',
      'The turn ended on the prompt stall budget or the makespan ceiling; no enriched timeout record was kept.',
      [
        "Raise the agent's prompt stall budget or makespan ceiling.",
        "Check the provider's latency (provider:degraded events, obs.diagnostics).",
      ],
    );
  }
  const phase = oneOf(enriched.data.phase, TIMEOUT_PHASES) ?? 'stall';
  const elapsedMs = count(enriched.data.elapsedMs);
  const budgetMs = count(enriched.data.budgetMs);
  const knob = str(enriched.data.knob) ?? (phase === 'stall' ? 'prompt stall budget' : 'makespan ceiling');
  return cause(
    'prompt_timeout',
    phase === 'stall'
      ? `The model produced no output for ${elapsedMs} ms against a ${budgetMs} ms prompt stall budget.`
      : `The turn ran ${elapsedMs} ms against a ${budgetMs} ms makespan ceiling.`,
    [
      `Raise ${knob} above ${budgetMs} ms, or use a faster model.`,
      "Check the provider's latency (provider:degraded events, obs.diagnostics).",
    ],
    { phase, elapsedMs, budgetMs },
  );
};

/** What to do about a failed model call, by its provider error kind. */
const MODEL_FAILURE_STEPS: Record<string, string> = {
  auth: 'The provider refused the API key: check providers.<provider>.apiKey in config.yaml, then models.test.',
  rate_limit:
    "The provider is rate limiting or out of quota: wait, raise the account's limits, or add fallbackModels on another provider.",
  bad_request:
    'The provider refused the request: read its message (the model id, a request setting, the context size).',
  timeout: 'Raise providers.<provider>.timeoutMs, or use a faster model.',
};
const MODEL_FAILURE_DEFAULT_STEP =
  "The provider failed on its side: retry, check the provider's status, or add fallbackModels on another provider.";

/**
 * The turn ended `error` on a failed model call: names each model tried with its status and the upstream's message
 * (DESIGN §3 "upstream failures"). Ranked with the endings it explains, below tool failures (rule 1).
 */
const modelFailure: Rule = ({ endReason, records }) => {
  if (endReason !== 'error') return undefined;
  const failures = modelFailuresOf(lastModelError(records));
  const last = failures.at(-1);
  if (last === undefined) return undefined;
  const detail =
    failures.length === 1
      ? `The model call to ${last.provider}/${last.model} failed: ${describeModelFailure(last)}.`
      : `Every model tried failed: ${failures.map((failure) => `${failure.provider}/${failure.model}: ${describeModelFailure(failure)}`).join('; ')}.`;
  const step = (MODEL_FAILURE_STEPS[last.errorKind] ?? MODEL_FAILURE_DEFAULT_STEP).replace('<provider>', last.provider);
  return cause(
    'upstream_failed',
    detail,
    [step, 'Look at failures[] for each model, its status and the message the provider gave.'],
    {
      provider: last.provider,
      model: last.model,
      errorKind: last.errorKind,
      ...(last.status === undefined ? {} : { status: last.status }),
    },
  );
};

/** The turn stopped because storage or Redis could not be reached while it ran (its model_error says dependency_outage). */
const dependencyUnavailable: Rule = ({ endReason, records }) => {
  if (endReason !== 'error' || lastModelError(records)?.data.reason !== 'dependency_outage') return undefined;
  return cause(
    'dependency_unavailable',
    'Storage or coordination (the database or Redis) could not be reached while the turn ran.',
    ['Check GET /ready and the database and Redis; retry the turn once they answer.'],
  );
};

const OTHER_ENDINGS: Record<string, [string, string]> = {
  error: [
    'The turn failed on a model or provider error.',
    'Check the provider configuration and obs.diagnostics for the error kind.',
  ],
  circuit_open: [
    "Every candidate model's circuit breaker was open.",
    'Wait for the breaker to close, or add fallbackModels on another provider.',
  ],
  max_steps: [
    'The turn reached the agent maxSteps limit before answering.',
    "Raise the agent's maxSteps, or narrow the task.",
  ],
  budget_exceeded: [
    'The turn exceeded the agent token budget (budget.maxTokensPerTurn).',
    'Raise budget.maxTokensPerTurn, or narrow the task.',
  ],
  context_loop: [
    'The model repeated the same tool call with the same arguments until the loop guard stopped it.',
    'Check the tool result the model kept retrying on (failures[]).',
  ],
  aborted: [
    'The turn was cancelled by the client or a shutdown.',
    'Retry the turn; nothing failed on the gateway side.',
  ],
  orphaned: [
    'The gateway stopped while the turn ran; the restart found its run unfinished and marked it orphaned.',
    'Re-run the task (session.spawn); check the gateway log for why it stopped.',
  ],
};

/** Rule 3: a degraded session whose every recall missed, when no other cause matched. */
const recallMiss: Rule = ({ degraded, recall }) => {
  if (!degraded || recall === undefined || recall.recalls === 0 || recall.zeroHits !== recall.recalls) return undefined;
  return cause('recall_miss', `All ${recall.recalls} memory recall(s) returned no hits.`, [
    'Check that the memories exist for this agent and tenant (memory.search).',
    'Check the embedding provider and the recall lanes.',
  ]);
};

const otherEnding: Rule = ({ endReason, degraded, records }) => {
  const known = OTHER_ENDINGS[endReason];
  if (known !== undefined) {
    const error = lastModelError(records)?.data;
    const kind = [str(error?.errorKind), str(error?.providerErrorKind) ?? str(error?.reason)]
      .filter((part) => part !== undefined)
      .join(': ');
    return cause(endReason, kind === '' ? known[0] : `${known[0]} Last model error: ${kind}.`, [known[1]]);
  }
  return degraded
    ? cause('unknown', `The session ended ${endReason} with no recorded cause.`, [
        'Read the trajectory with obs.explain depth full.',
      ])
    : undefined;
};

const learnedSkillFailing: Rule = ({ learning }) =>
  learning === undefined || learning.skillFailures === 0
    ? undefined
    : cause(
        'learned_skill_failing',
        `${learning.skillFailures} of ${learning.skillsUsed} learned skill use(s) failed.`,
        ['Review the failing learned skill; demote it if it keeps failing.'],
      );

const synthesisAbstained: Rule = ({ learning }) =>
  learning?.synthesisAbstained !== true
    ? undefined
    : cause(
        'synthesis_abstained_low_capability',
        'Skill synthesis abstained because the model tier is below the capability floor.',
        ['Use a more capable model for reflection and synthesis if learned skills are wanted.'],
      );

const outcomeUnresolved: Rule = ({ learning, records }) => {
  const isFinished = records.some((record) => record.kind === TRAJECTORY_KIND.turnEnd);
  return learning === undefined || learning.outcomeResolved || !isFinished
    ? undefined
    : cause('outcome_unresolved', 'The finished trajectory produced no resolvable learning outcome.', [
        'Nothing to fix; add a judge or reaction source if outcomes should resolve.',
      ]);
};

/** Highest first; the first rule that matches names the cause. */
const RULES: readonly Rule[] = [
  terminalDriveOpenedWithoutTask,
  terminalDriveEvicted,
  orchestrateFailed,
  toolFailure,
  contextExhausted,
  outputStarved,
  promptTimeout,
  modelFailure,
  dependencyUnavailable,
  recallMiss,
  otherEnding,
  learnedSkillFailing,
  synthesisAbstained,
  outcomeUnresolved,
];

export function likelyRootCause(input: RootCauseInput): RootCause {
  for (const rule of RULES) {
    const found = rule(input);
    if (found !== undefined) return found;
  }
  return cause('none', 'No failure evidence: the session completed without a recorded problem.', []);
}
