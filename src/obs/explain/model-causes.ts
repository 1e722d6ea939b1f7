// The root causes a model call ends a turn on: the context window, the output cap, a timeout, a failed call, and
// storage or Redis out of reach while it ran.
import { TIMEOUT_PHASES, TRAJECTORY_KIND } from '../evidence/kinds.js';
import { count, oneOf, str } from '../evidence/read.js';
import type { TrajectoryEvidence } from '../evidence/records.js';
import { cause, type Rule } from './cause-rule.js';
import { describeModelFailure, modelFailuresOf } from './model-evidence.js';

export const contextExhausted: Rule = ({ endReason, contextBudget }) => {
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

export const outputStarved: Rule = ({ endReason }) =>
  endReason !== 'output_starved'
    ? undefined
    : cause('output_starved', "The final answer was truncated at the model's maximum output tokens.", [
        "Raise the model's maxTokens in the provider catalogue.",
        'Ask for a shorter answer, or split the task into steps.',
      ]);

/** The last model_error of the session, when the turn failed on one. */
export const lastModelError = (records: readonly TrajectoryEvidence[]) =>
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
export const promptTimeout: Rule = ({ endReason, records }) => {
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
export const modelFailure: Rule = ({ endReason, records }) => {
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
export const dependencyUnavailable: Rule = ({ endReason, records }) => {
  if (endReason !== 'error' || lastModelError(records)?.data.reason !== 'dependency_outage') return undefined;
  return cause(
    'dependency_unavailable',
    'Storage or coordination (the database or Redis) could not be reached while the turn ran.',
    ['Check GET /ready and the database and Redis; retry the turn once they answer.'],
  );
};

/** A configured budget (config `budgets:`) refused the turn's model call before dispatch: its model_error names it. */
export const budgetRefused: Rule = ({ endReason, records }) => {
  const error = lastModelError(records)?.data;
  if (endReason !== 'budget_exceeded' || error?.errorKind !== 'budget_exceeded') return undefined;
  const budgetId = str(error.budgetId) ?? 'unknown';
  return cause(
    'budget_exceeded',
    `A model call was refused before dispatch: budget '${budgetId}' (config budgets:) is at its limit for its window.`,
    [
      `budgets.usage shows what budget '${budgetId}' holds and when its window ends.`,
      'Raise its maxCostUsd or maxTokens, or wait for its window to end.',
    ],
    { budgetId },
  );
};
