// The tool calls of one step: the loop-repeat check, each call's beforeTool decision, the call itself, and afterTool.
import type { TurnHookContext, ToolDecision } from './types.js';
import { toolFailure, type ToolCallOutcome, type ToolLimits, type TurnTools } from '../agents/index.js';
import type { TranscriptMessage, TranscriptToolCall } from '../providers/index.js';
import type { TurnHookRegistry } from './hook-registry.js';
import type { TurnTally } from './turn-tally.js';
import type { TurnTrace } from './turn-trace.js';
import type { TurnRequest } from './types.js';
import type { TurnSpan } from '../tracing/index.js';

/** Counts each (tool, arguments) pair of a turn; the loop ends the turn once one reaches the repeat limit. */
export function createRepeatCounter(limit: number) {
  const counts = new Map<string, number>();
  return {
    /** The message ending the turn when a call repeats too often, else undefined. Counts every call given. */
    check(calls: readonly TranscriptToolCall[]): string | undefined {
      for (const call of calls) {
        const signature = `${call.name}\u0000${JSON.stringify(call.input)}`;
        const seen = (counts.get(signature) ?? 0) + 1;
        counts.set(signature, seen);
        if (seen >= limit) return `${call.name} was called ${seen} times with the same arguments`;
      }
      return undefined;
    },
  };
}

/** A tool decision once it is final: a wait for an operator becomes the operator's answer. */
export type SettledDecision = { action: 'allow' } | { action: 'deny'; reason: string };

/** A wait for an operator that `signal` ends as a denial giving `cancelledReason` (a turn's or a script run's stop). */
export async function settleDecision(
  decision: ToolDecision,
  signal: AbortSignal,
  cancelledReason: string,
): Promise<SettledDecision> {
  if (decision.action !== 'wait') return decision;
  const cancelled: SettledDecision = { action: 'deny', reason: cancelledReason };
  if (signal.aborted) return cancelled;
  let onAbort = (): void => {};
  const abort = new Promise<SettledDecision>((resolve) => {
    onAbort = () => resolve(cancelled);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([decision.decision, abort]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

export interface ToolStepDeps {
  /** The turn's tools (built-in and resolved from sources): every call runs through their one execute path. */
  tools: Pick<TurnTools, 'execute'>;
  hooks: TurnHookRegistry;
  now: () => number;
}

/** Runs the calls in order; each ends as a tool result the model sees next (an error result when denied or failed). */
export async function runToolStep(
  { tools, hooks, now }: ToolStepDeps,
  calls: readonly TranscriptToolCall[],
  {
    request,
    hookCtx,
    step,
    tally,
    trace,
    toolLimits,
    span,
  }: {
    request: TurnRequest;
    hookCtx: TurnHookContext;
    step: number;
    tally: TurnTally;
    trace: TurnTrace;
    toolLimits: Partial<ToolLimits>;
    /** The turn's span while tracing is on: each call runs as its `execute_tool` span. */
    span?: TurnSpan | undefined;
  },
): Promise<TranscriptMessage[]> {
  const results: TranscriptMessage[] = [];
  for (const call of calls) {
    const info = { toolCallId: call.id, toolName: call.name, input: call.input };
    const startedAt = now();
    const decision = await settleDecision(
      await hooks.beforeTool(info, hookCtx),
      request.signal,
      'the turn was cancelled while the call waited for a decision',
    );
    const execute = () =>
      tools.execute(
        call.name,
        call.input,
        {
          agentId: hookCtx.agentId,
          sessionKey: request.sessionKey,
          signal: request.signal,
          caller: request.caller,
          ownerId: hookCtx.ownerId,
          turn: {
            traceId: hookCtx.traceId,
            keyParts: hookCtx.keyParts,
            ...(hookCtx.rootRunId === undefined ? {} : { rootRunId: hookCtx.rootRunId }),
            toolLimits,
          },
        },
        toolLimits,
      );
    const progress = { name: call.name, callId: call.id, step };
    if (decision.action === 'allow') request.onTool?.({ ...progress, status: 'started' });
    const outcome: ToolCallOutcome =
      decision.action === 'deny'
        ? toolFailure('denied', `${call.name} was denied: ${decision.reason}`, now() - startedAt)
        : span === undefined
          ? await execute()
          : await span.tool({ id: call.id, name: call.name, input: call.input }, async (toolSpan) => {
              const executed = await execute();
              toolSpan.finished(executed);
              return executed;
            });
    request.onTool?.({
      ...progress,
      status: 'finished',
      durationMs: outcome.durationMs,
      outcome: decision.action === 'deny' ? 'denied' : outcome.ok ? 'ok' : 'error',
    });
    trace.toolCall(step, call.name, outcome);
    if (!outcome.ok) tally.toolFailures += 1;
    await hooks.afterTool(
      {
        ...info,
        ok: outcome.ok,
        durationMs: outcome.durationMs,
        ...(outcome.errorKind === undefined ? {} : { errorKind: outcome.errorKind }),
      },
      hookCtx,
    );
    results.push({
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: outcome.content,
      isError: !outcome.ok,
      timestamp: now(),
    });
  }
  return results;
}
