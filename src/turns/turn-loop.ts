// One agent turn on an ensured session: history + message → model → tools → model … until an answer or a limit (steps, tokens, loop, context).
import type { EventBus } from '../events/index.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { agentModels, type AgentDefinition, type ToolRegistry } from '../agents/index.js';
import type { DeliveryRecorder, Recorder } from '../obs/index.js';
import type { ModelRef, ModelRouter, TranscriptMessage, TranscriptToolCall } from '../providers/index.js';
import { assertNoToolClash, callsForClient, laterStepSettings, resultsForOpenCalls } from './client-tools.js';
import { fitContext } from './context-budget.js';
import { hookContextOf, type TurnHookContext } from './hooks.js';
import type { TurnHookRegistry } from './hook-registry.js';
import type { TurnLimits } from './limits.js';
import { runModelStep, withHookContext } from './model-step.js';
import { createRepeatCounter, runToolStep } from './tool-step.js';
import { classifyFailure } from './turn-failure.js';
import { emptyTally, endReasonOf, type TurnTally } from './turn-tally.js';
import { startTurnTrace, type TurnTrace } from './turn-trace.js';
import { createTurnTranscript, type TurnTranscript } from './turn-transcript.js';
import type { FinishReason, TurnRequest, TurnResult } from './types.js';

export interface TurnLoopDeps {
  router: ModelRouter;
  tools: ToolRegistry;
  events: EventBus;
  recorder: Recorder;
  /** Told when the turn's reply is sent, with the facts only the turn knows (receive time, channel, trace). */
  delivery?: DeliveryRecorder;
  hooks: TurnHookRegistry;
  limits: TurnLimits;
  /** Stores messages of the turn, in order, in one call. */
  append: (sessionKey: string, messages: readonly TranscriptMessage[]) => Promise<void>;
  log: Logger;
  now: () => number;
}

/** What TurnService hands the loop once the session is ensured. */
export interface LoopTurn {
  request: TurnRequest;
  agent: AgentDefinition;
  /** The session's earlier transcript, oldest first (the seed for a new session). */
  history: readonly TranscriptMessage[];
  /** Messages to store ahead of the user message (a new session's seed). */
  unstored: readonly TranscriptMessage[];
  /** The channel part of the session key, for the turn's evidence. */
  channel: string;
  /** The token id owning the session (TurnHookContext.ownerId). */
  ownerId: string;
}

/** A finished turn, and the commit of what it stored last. */
export interface LoopOutcome {
  result: TurnResult;
  /**
   * Settles once the turn's last transcript write is committed (its earlier ones were committed step by step); rejects
   * when it could not be stored. TurnService queues the session's usage beside it and answers only after both.
   */
  stored: Promise<void>;
}

export interface TurnLoop {
  run(turn: LoopTurn): Promise<LoopOutcome>;
}

/** The parts of one running turn every step reads. */
interface Turn {
  request: TurnRequest;
  agent: AgentDefinition;
  trace: TurnTrace;
  tally: TurnTally;
  transcript: TurnTranscript;
  hookCtx: TurnHookContext;
  channel: string;
  startedAt: number;
}

/** A stateless turn's transcript lives only in the turn itself. */
const discard = async (): Promise<void> => {};

const NO_PROVIDER_FOR_TURN =
  'No LLM provider configured: add one under `providers:` in config.yaml and set the agent\'s provider and model (see README, "Configuration")';

export function createTurnLoop(deps: TurnLoopDeps): TurnLoop {
  const { router, events, recorder, hooks, limits, log, now } = deps;

  function finish(
    turn: Turn,
    finishReason: FinishReason,
    error?: string,
    endReason = endReasonOf(finishReason, turn.tally),
  ): LoopOutcome {
    const { tally, request, agent, trace } = turn;
    // Queued, not awaited: the caller adds the session's usage to the same commit before it waits.
    const stored = turn.transcript.save();
    // Whoever ends up with the outcome awaits it; this keeps a rejection from being reported as unhandled meanwhile.
    stored.catch(() => undefined);
    trace.end({
      finishReason,
      endReason,
      steps: tally.steps,
      inputTokens: tally.inputTokens,
      outputTokens: tally.outputTokens,
      costUsd: tally.costUsd,
      toolFailures: tally.toolFailures,
    });
    events.emit('message:sent', {
      agentId: agent.id,
      sessionKey: request.sessionKey,
      channelId: turn.channel,
      traceId: trace.traceId,
      chars: tally.text.length,
      finishReason,
    });
    deps.delivery?.replied({
      channelId: turn.channel,
      sessionKey: request.sessionKey,
      traceId: trace.traceId,
      receivedAt: turn.startedAt,
    });
    const result: TurnResult = {
      response: tally.text,
      tokensUsed: {
        input: tally.inputTokens,
        output: tally.outputTokens,
        total: tally.inputTokens + tally.outputTokens,
      },
      finishReason,
      agentId: agent.id,
      sessionKey: request.sessionKey,
      traceId: trace.traceId,
      costUsd: tally.costUsd,
      steps: tally.steps,
      ...(error === undefined ? {} : { error }),
    };
    return { result, stored };
  }

  /** Every tool call in the transcript needs a result, or the next turn's prompt is invalid. */
  function notRun(calls: readonly TranscriptToolCall[], why: string): TranscriptMessage[] {
    return calls.map((call): TranscriptMessage => ({
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: `Error: not run (${why})`,
      isError: true,
      timestamp: now(),
    }));
  }

  function storeNotRun(turn: Turn, calls: readonly TranscriptToolCall[], why: string): void {
    turn.transcript.store(...notRun(calls, why));
  }

  function stopBeforeTools(
    turn: Turn,
    calls: readonly TranscriptToolCall[],
    reason: FinishReason,
    error?: string,
  ): LoopOutcome {
    storeNotRun(turn, calls, reason);
    return finish(turn, reason, error);
  }

  /**
   * Hands the client's calls to the caller. The agent's own calls of the same step are not run: their results
   * would reach the model only after the caller's, so the model asks again if it still needs them.
   */
  function handOver(turn: Turn, calls: readonly TranscriptToolCall[], forClient: TranscriptToolCall[]): LoopOutcome {
    storeNotRun(
      turn,
      calls.filter((call) => !forClient.includes(call)),
      "the turn ended for the client's tool calls",
    );
    const { result, stored } = finish(turn, 'tool_calls');
    return { result: { ...result, toolCalls: forClient }, stored };
  }

  async function steps(turn: Turn, model: ModelRef, history: readonly TranscriptMessage[]): Promise<LoopOutcome> {
    const { request, agent, trace, tally, transcript } = turn;
    const { config } = agent;
    const entry = router.entry(model);
    const windowTokens = entry?.contextWindow ?? limits.defaultContextWindowTokens;
    const outputHeadroom = Math.min(
      request.settings?.maxOutputTokens ?? entry?.maxTokens ?? limits.defaultOutputHeadroomTokens,
      windowTokens,
    );
    const system = request.systemPrompt ?? config.systemPrompt;
    const fallbacks = request.model === undefined ? agentModels(config, router).fallbacks : [];
    const toolSpecs =
      request.clientTools === undefined
        ? deps.tools.specs(config.tools)
        : [...deps.tools.specs(config.tools), ...request.clientTools];
    const afterFirstStep = laterStepSettings(request.settings);
    const { toolTimeoutMs, maxToolResultChars, loopRepeatLimit } = config.budget;
    const repeats = createRepeatCounter(loopRepeatLimit ?? limits.loopRepeatLimit);
    let toolCallsLeft = request.maxToolCalls ?? Infinity;
    const toolLimits = {
      ...(toolTimeoutMs === undefined ? {} : { timeoutMs: toolTimeoutMs }),
      ...(maxToolResultChars === undefined ? {} : { maxResultChars: maxToolResultChars }),
    };

    for (let step = 1; step <= config.maxSteps; step += 1) {
      const { budget, messages } = fitContext({
        windowTokens,
        windowCapSource: entry === undefined ? 'none' : 'served',
        outputHeadroom,
        system,
        history,
        freshTail: transcript.freshTail,
      });
      trace.contextBudget(step, budget);
      if (budget.verdict === 'exhausted') {
        return finish(
          turn,
          'context_exhausted',
          `The message and system prompt need ${budget.assembledInputTokens + outputHeadroom} tokens; the model's context window is ${windowTokens}`,
        );
      }
      if (budget.verdict === 'downshifted' && request.keepsWholeHistory === true) {
        return finish(
          turn,
          'context_exhausted',
          `The conversation does not fit the model's context window of ${windowTokens} tokens and truncation is disabled; ${budget.droppedCount} earlier messages would have to be dropped`,
        );
      }
      tally.steps = step;
      const added = await hooks.beforeModel({ message: request.message, step }, turn.hookCtx);
      // A step boundary: a turn stopped meanwhile (a revoked run tree) makes no further model call.
      if (request.signal.aborted) return finish(turn, 'aborted');
      events.emit('message:streaming', { agentId: agent.id, sessionKey: request.sessionKey, step });
      const output = await runModelStep(
        router,
        {
          primary: model,
          fallbacks,
          system,
          messages: withHookContext(
            added.map((addition) => addition.messages),
            messages,
          ),
          // With no tool calls left the model is offered none, so it answers in text.
          tools: toolCallsLeft > 0 ? toolSpecs : [],
          agentId: agent.id,
          sessionKey: request.sessionKey,
          signal: request.signal,
          ...(request.settings === undefined ? {} : { settings: step === 1 ? request.settings : afterFirstStep }),
        },
        { step, tally, trace, onDelta: request.onDelta },
      );
      const { toolCalls } = output;
      transcript.add({
        role: 'assistant',
        content: output.text,
        timestamp: now(),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      });

      if (tally.inputTokens + tally.outputTokens > config.budget.maxTokensPerTurn)
        return stopBeforeTools(turn, toolCalls, 'budget_exceeded');
      if (toolCalls.length === 0) return finish(turn, tally.lastModelFinish === 'length' ? 'length' : 'stop');
      // Past max_tool_calls, the model's later calls (in its order) are answered as not run, as OpenAI ignores them.
      const allowed = toolCalls.slice(0, toolCallsLeft);
      const capped = toolCalls.slice(allowed.length);
      toolCallsLeft -= allowed.length;
      const forClient = callsForClient(allowed, request.clientTools);
      if (forClient.length > 0) {
        storeNotRun(turn, capped, 'max_tool_calls');
        return handOver(turn, allowed, forClient);
      }
      const repeated = repeats.check(allowed);
      if (repeated !== undefined) return stopBeforeTools(turn, toolCalls, 'context_loop', repeated);

      transcript.add(
        ...(await runToolStep(deps, allowed, { request, hookCtx: turn.hookCtx, step, tally, trace, toolLimits })),
        ...notRun(capped, 'max_tool_calls'),
      );
      await transcript.save();
      if (request.signal.aborted) return finish(turn, 'aborted');
    }
    return finish(turn, 'max_steps');
  }

  return {
    async run({ request, agent, history, unstored, channel, ownerId }) {
      const { sessionKey } = request;
      if (request.clientTools !== undefined)
        assertNoToolClash(deps.tools.specs(agent.config.tools), request.clientTools);
      const toolResults = resultsForOpenCalls(history, request.toolOutputs ?? [], now());
      const traceId = randomUUID();
      const startedAt = now();
      const transcript = createTurnTranscript(
        request.stateless === true ? discard : (messages) => deps.append(sessionKey, messages),
      );
      transcript.store(...unstored);
      const trace = startTurnTrace(
        { recorder, events, now },
        {
          traceId,
          sessionKey,
          agentId: agent.id,
          channel,
          isSynthetic: request.isSynthetic ?? false,
          ...(request.messageId === undefined ? {} : { messageId: request.messageId }),
          ...(request.rootRunId === undefined ? {} : { rootRunId: request.rootRunId }),
        },
      );
      events.emit('message:received', {
        agentId: agent.id,
        sessionKey,
        channelId: channel,
        chars: request.message.length,
      });
      transcript.add(...toolResults);
      if (request.message.length > 0 || toolResults.length === 0)
        transcript.add({ role: 'user', content: request.message, timestamp: now() });
      const turn: Turn = {
        request,
        agent,
        trace,
        tally: emptyTally(),
        transcript,
        hookCtx: hookContextOf(request, agent.id, traceId, ownerId),
        channel,
        startedAt,
      };

      const model = request.model ?? agentModels(agent.config, router).primary;
      if (model === undefined) {
        return finish(
          turn,
          'error',
          router.providers().length === 0
            ? NO_PROVIDER_FOR_TURN
            : `Agent '${agent.id}' has no model: set agents.${agent.id}.model`,
        );
      }
      try {
        return await steps(turn, model, history);
      } catch (error) {
        const failure = classifyFailure(
          error,
          request.signal,
          trace,
          { step: turn.tally.steps, elapsedMs: now() - startedAt },
          log,
        );
        const { result, stored } = finish(turn, failure.finishReason, failure.error, failure.endReason);
        // What failed, with its retry hint and upstream status: each surface maps it (/v1: 502, 503 + Retry-After …).
        return { result: { ...result, ...failure.fields }, stored };
      }
    },
  };
}
