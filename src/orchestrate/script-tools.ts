// The bridge of one run's `tools.<name>(args)` calls: each is decided against the run's lease, then by the turn's
// beforeTool hooks (approval rules, which may hold it for an operator), then run through the turn's execute path.
import type { ToolContext, ToolLimits, TurnTools } from '../agents/index.js';
import { settleDecision } from '../turns/index.js';
import type { TurnHookContext, TurnHooks } from '../turns/types.js';
import { decide, type DenyReason, type LeaseState } from './lease.js';
import type { ScriptToolCallContext } from './sandbox/index.js';
import { auditDecision, type RunEvidenceTarget, type RunTally } from './run-evidence.js';

export interface ScriptToolsDeps {
  /** Undefined: the run got no lease, so no call is made (`lease_absent`). */
  lease: LeaseState | undefined;
  tools: Pick<TurnTools, 'execute'>;
  hooks: Pick<TurnHooks, 'beforeTool'>;
  /** The turn's hook context with the run's signal. */
  hookCtx: TurnHookContext;
  /** The tool context calls run with; its signal is the run's. */
  toolCtx: ToolContext;
  toolLimits: Partial<ToolLimits>;
  evidence: RunEvidenceTarget;
  tally: RunTally;
  /** Consecutive denials that trip the capability-denial breaker. */
  denialBreaker: number;
  onBreaker: (consecutiveDenials: number) => void;
  now: () => number;
}

export interface ScriptTools {
  /**
   * The sandbox's callTool: the tool's JSON result, or a rejection the script sees as an Error. The context's signal
   * aborts when the run ends while the call is pending.
   */
  callTool(tool: string, args: unknown, context: ScriptToolCallContext): Promise<unknown>;
  /** Cooperative revoke: later calls are denied and the calls in flight are rejected now. */
  revoke(): void;
  /** Whether a call was attempted without a lease. */
  readonly attemptedWithoutLease: boolean;
}

/** A result the script gets as JSON when it is JSON (a cut one is not), else as the text. */
function scriptValue(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

export function createScriptTools(deps: ScriptToolsDeps): ScriptTools {
  const { lease, evidence, tally, now } = deps;
  const inFlight = new Set<AbortController>();
  let consecutiveDenials = 0;
  let calls = 0;
  let attemptedWithoutLease = false;

  function denied(tool: string, reason: DenyReason, detail?: string): Error {
    auditDecision(evidence, tally, { tool, decision: 'deny', reason });
    consecutiveDenials += 1;
    if (consecutiveDenials >= deps.denialBreaker) deps.onBreaker(consecutiveDenials);
    return new Error(`${tool} was denied (${reason})${detail === undefined ? '' : `: ${detail}`}`);
  }

  async function run(tool: string, args: unknown, state: LeaseState, signal: AbortSignal): Promise<unknown> {
    calls += 1;
    const info = { toolCallId: `${state.lease.runId}:${calls}`, toolName: tool, input: args };
    const gate = await deps.hooks.beforeTool(info, { ...deps.hookCtx, signal });
    if (gate.action === 'wait') auditDecision(evidence, tally, { tool, decision: 'approval' });
    const verdict = await settleDecision(gate, signal, 'the run stopped while the call waited for a decision');
    if (state.revoked) throw denied(tool, 'revoked');
    if (verdict.action === 'deny') throw denied(tool, 'approval_denied', verdict.reason);
    auditDecision(evidence, tally, { tool, decision: 'allow' });
    consecutiveDenials = 0;
    const outcome = await deps.tools.execute(tool, args, { ...deps.toolCtx, signal }, deps.toolLimits);
    if (state.revoked) throw new Error(`${tool}: the run's lease was revoked (lease.revoke)`);
    if (!outcome.ok) throw new Error(outcome.content.replace(/^Error: /, ''));
    tally.results += 1;
    tally.resultBytes += outcome.resultBytes;
    tally.resultChars += outcome.content.length;
    return scriptValue(outcome.content);
  }

  return {
    get attemptedWithoutLease() {
      return attemptedWithoutLease;
    },
    async callTool(tool, args, context) {
      if (lease === undefined) {
        attemptedWithoutLease = true;
        throw denied(tool, 'lease_absent');
      }
      const decision = decide(lease, tool, now());
      if (decision.decision === 'deny') throw denied(tool, decision.reason);
      const controller = new AbortController();
      inFlight.add(controller);
      try {
        return await run(tool, args, lease, AbortSignal.any([deps.toolCtx.signal, controller.signal, context.signal]));
      } finally {
        inFlight.delete(controller);
      }
    },
    revoke() {
      if (lease !== undefined) lease.revoked = true;
      for (const controller of inFlight) controller.abort();
    },
  };
}
