// Writes one turn's counts-only evidence: session index row, trajectory records, usage rows, and bus events.
import type { EventBus } from '../events/index.js';
import type { ToolCallOutcome } from '../agents/index.js';
import { isDegradedEnding, TRAJECTORY_KIND, type Recorder, type SessionIndexStart } from '../obs/index.js';
import type { ModelRef, TokenUsage, UpstreamFailure } from '../providers/index.js';
import type { ContextBudget } from './context-budget.js';

export interface TurnTraceDeps {
  recorder: Recorder;
  events: EventBus;
  now: () => number;
}

export interface TurnTrace {
  readonly traceId: string;
  modelCall(
    step: number,
    call: {
      model: ModelRef;
      usage: TokenUsage;
      costUsd: number;
      latencyMs: number;
      finishReason: string;
      toolCalls: number;
      textChars: number;
    },
  ): void;
  /** `models`: each model the failed call tried, in order, with its status and the upstream's message (masked, capped). */
  modelError(
    step: number,
    error: {
      kind: string;
      reason?: string;
      providerErrorKind?: string;
      models?: readonly UpstreamFailure[];
      /** A call refused by a budget (src/budgets): the budget's id. */
      budgetId?: string;
    },
  ): void;
  promptTimeout(timeout: { elapsedMs: number; budgetMs?: number; knob?: string }): void;
  toolCall(step: number, toolName: string, outcome: ToolCallOutcome): void;
  /** A tool the turn offers only as a failing stand-in (an MCP server that cannot be reached), with why. */
  toolUnavailable(toolName: string, errorKind: string, reason: string): void;
  contextBudget(step: number, budget: ContextBudget): void;
  end(outcome: {
    finishReason: string;
    endReason: string;
    steps: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
    toolFailures: number;
  }): void;
}

/** A failed model call as evidence: ids, kind and status, and the upstream's message (already masked and capped). */
function modelEvidence(failure: UpstreamFailure): Record<string, string | number> {
  return {
    provider: failure.provider,
    model: failure.model,
    providerErrorKind: failure.errorKind,
    ...(failure.statusCode === undefined ? {} : { status: failure.statusCode }),
    ...(failure.message === undefined ? {} : { message: failure.message }),
  };
}

/** Starts the turn's evidence; `turn` (its start time included) is handed to the recorder as it is, not copied. */
export function startTurnTrace({ recorder, events, now }: TurnTraceDeps, turn: SessionIndexStart): TurnTrace {
  const { traceId, sessionKey, agentId, startedAt } = turn;
  const turnRecorder = recorder.openTurn(turn);
  const record = (kind: string, data: Record<string, unknown>) => turnRecorder.step(kind, now(), data);
  record('turn_start', { agentId, channel: turn.channel });

  return {
    traceId,
    modelCall(step, call) {
      record('model_call', {
        step,
        provider: call.model.provider,
        model: call.model.modelId,
        inputTokens: call.usage.inputTokens,
        outputTokens: call.usage.outputTokens,
        cacheReadTokens: call.usage.cacheReadTokens,
        cacheWriteTokens: call.usage.cacheWriteTokens,
        costUsd: call.costUsd,
        latencyMs: call.latencyMs,
        finishReason: call.finishReason,
        toolCalls: call.toolCalls,
        textChars: call.textChars,
      });
      recorder.usage({
        ts: now(),
        agentId,
        sessionKey,
        provider: call.model.provider,
        model: call.model.modelId,
        inputTokens: call.usage.inputTokens,
        outputTokens: call.usage.outputTokens,
        cacheReadTokens: call.usage.cacheReadTokens,
        cacheWriteTokens: call.usage.cacheWriteTokens,
        costUsd: call.costUsd,
      });
      events.emit('observability:token_usage', {
        agentId,
        sessionKey,
        provider: call.model.provider,
        model: call.model.modelId,
        inputTokens: call.usage.inputTokens,
        outputTokens: call.usage.outputTokens,
        costUsd: call.costUsd,
      });
    },
    modelError(step, error) {
      record('model_error', {
        step,
        errorKind: error.kind,
        ...(error.reason === undefined ? {} : { reason: error.reason }),
        ...(error.providerErrorKind === undefined ? {} : { providerErrorKind: error.providerErrorKind }),
        ...(error.budgetId === undefined ? {} : { budgetId: error.budgetId }),
        ...(error.models === undefined || error.models.length === 0 ? {} : { models: error.models.map(modelEvidence) }),
      });
      if (error.reason === 'circuit_open') record('breaker', { step, event: 'opened', toolName: null });
    },
    promptTimeout({ elapsedMs, budgetMs, knob }) {
      record('prompt_timeout', {
        phase: 'makespan',
        elapsedMs,
        ...(budgetMs === undefined ? {} : { budgetMs }),
        ...(knob === undefined ? {} : { knob }),
      });
    },
    toolCall(step, toolName, outcome) {
      record('tool_call', {
        step,
        toolName,
        ok: outcome.ok,
        ...(outcome.errorKind === undefined ? {} : { errorKind: outcome.errorKind }),
        resultDigest: outcome.resultDigest,
        resultBytes: outcome.resultBytes,
        durationMs: outcome.durationMs,
      });
    },
    toolUnavailable(toolName, errorKind, reason) {
      record(TRAJECTORY_KIND.toolUnavailable, { toolName, errorKind, reason });
    },
    contextBudget(step, budget) {
      record('context_budget', { step, ...budget });
    },
    end(outcome) {
      const endedAt = now();
      turnRecorder.step('turn_end', endedAt, {
        finishReason: outcome.finishReason,
        endReason: outcome.endReason,
        steps: outcome.steps,
        inputTokens: outcome.inputTokens,
        outputTokens: outcome.outputTokens,
        costUsd: outcome.costUsd,
        toolFailures: outcome.toolFailures,
        durationMs: endedAt - startedAt,
      });
      turnRecorder.end({ endReason: outcome.endReason, degraded: isDegradedEnding(outcome.endReason), endedAt });
    },
  };
}
