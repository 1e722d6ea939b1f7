// likelyRootCause of one session, in the spec's precedence: terminal-drive verdicts, orchestrate, tool failures,
// degradation causes, a failed model call or unreachable storage, recall_miss, other endings, then the benign causes
// and outcome_unresolved. The rules of a model call ending the turn are in model-causes.ts.
import { EVICTION_REASONS, TRAJECTORY_KIND } from '../evidence/kinds.js';
import { bool, count, oneOf, str } from '../evidence/read.js';
import { cause, type RootCauseInput, type Rule } from './cause-rule.js';
import {
  budgetRefused,
  contextExhausted,
  dependencyUnavailable,
  lastModelError,
  modelFailure,
  outputStarved,
  promptTimeout,
} from './model-causes.js';
import type { RootCause } from './types.js';

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

/** A turn offered MCP tools only as failing stand-ins (tool_unavailable): their server could not be reached. */
const mcpUnavailable: Rule = ({ records }) => {
  const standIns = records.filter((record) => record.kind === TRAJECTORY_KIND.toolUnavailable);
  const latest = standIns.at(-1);
  if (latest === undefined) return undefined;
  const names = [...new Set(standIns.map((record) => str(record.data.toolName) ?? 'unknown'))].slice(0, 5);
  return cause(
    'mcp_unavailable',
    `${names.join(', ')} could only be offered as failing tools (mcp_unavailable): ${str(latest.data.reason, 400) ?? 'the MCP server could not be reached'}.`,
    [
      "mcp.servers.list shows the server's state and lastError; mcp.servers.test probes it afresh.",
      'Fix the server or its mcp.servers entry; the next turn after its backoff connects again.',
    ],
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
    'The turn exceeded the agent token budget (budget.maxTokensPerTurn); no configured budget (budgets:) refused it.',
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
  mcpUnavailable,
  contextExhausted,
  outputStarved,
  promptTimeout,
  modelFailure,
  dependencyUnavailable,
  budgetRefused,
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
