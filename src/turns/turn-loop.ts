// One agent turn on an ensured session: history + message → model → tools → model … until an answer or a limit (steps, tokens, loop, context).
import type { EventBus } from '../events/index.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  offeredToolNames,
  type AgentDefinition,
  type AgentModels,
  type ToolRegistry,
  type TurnTools,
} from '../agents/index.js';
import type { DeliveryRecorder, Recorder, SessionIndexStart } from '../obs/index.js';
import type { ModelRef, ModelRouter, TranscriptMessage } from '../providers/index.js';
import type { SessionPort } from '../sessions/index.js';
import { assertNoToolClash, callsForClient, laterStepSettings, resultsForOpenCalls } from './client-tools.js';
import { fitContext } from './context-budget.js';
import { hookContextOf } from './hooks.js';
import type { TurnHookRegistry } from './hook-registry.js';
import type { TurnLimits } from './limits.js';
import { runModelStep, withHookContext } from './model-step.js';
import { createRepeatCounter, runToolStep } from './tool-step.js';
import { classifyFailure } from './turn-failure.js';
import { createTurnEnds, type LoopOutcome, type Turn } from './turn-end.js';
import { emptyTally } from './turn-tally.js';
import { startTurnTrace } from './turn-trace.js';
import { createTurnTranscript } from './turn-transcript.js';
import type { TurnRequest } from './types.js';
import type { TurnTracer } from '../tracing/index.js';

export type { LoopOutcome } from './turn-end.js';

export interface TurnLoopDeps {
  router: ModelRouter;
  tools: ToolRegistry;
  events: EventBus;
  recorder: Recorder;
  /** Told when the turn's reply is sent, with the facts only the turn knows (receive time, channel, trace). */
  delivery?: DeliveryRecorder;
  hooks: TurnHookRegistry;
  limits: TurnLimits;
  /** Where the turn's messages are stored, in order, one append per step. */
  store: Pick<SessionPort, 'append'>;
  log: Logger;
  now: () => number;
  /** Spans of each turn, model call and tool call; absent while tracing is off. */
  tracer?: TurnTracer | undefined;
}

/** What TurnService hands the loop once the session is ensured. */
export interface LoopTurn {
  request: TurnRequest;
  agent: AgentDefinition;
  /** The models chosen for this turn (TurnService, once per turn); no primary: the turn ends with an error. */
  models: AgentModels;
  /** The session's earlier transcript, oldest first (the seed for a new session). */
  history: readonly TranscriptMessage[];
  /** Messages to store ahead of the user message (a new session's seed). */
  unstored: readonly TranscriptMessage[];
  /** The token id owning the session (TurnHookContext.ownerId). */
  ownerId: string;
}

export interface TurnLoop {
  run(turn: LoopTurn): Promise<LoopOutcome>;
}

/** A stateless turn's transcript lives only in the turn itself. */
const discard = async (): Promise<void> => {};

const NO_PROVIDER_FOR_TURN =
  'No LLM provider configured: add one under `providers:` in config.yaml and set the agent\'s provider and model (see README, "Add a provider, an agent and embeddings")';

export function createTurnLoop(deps: TurnLoopDeps): TurnLoop {
  const { router, events, recorder, hooks, limits, log, now } = deps;

  const { finish, notRun, stopBeforeTools, handOver } = createTurnEnds(deps);

  async function steps(
    turn: Turn,
    model: ModelRef,
    fallbacks: readonly ModelRef[],
    history: readonly TranscriptMessage[],
    turnTools: TurnTools,
  ): Promise<LoopOutcome> {
    const { request, agent, trace, tally, transcript } = turn;
    const { config } = agent;
    const entry = router.entry(model);
    const windowTokens = entry?.contextWindow ?? limits.defaultContextWindowTokens;
    const outputHeadroom = Math.min(
      request.settings?.maxOutputTokens ?? entry?.maxTokens ?? limits.defaultOutputHeadroomTokens,
      windowTokens,
    );
    const system = request.systemPrompt ?? config.systemPrompt;
    const toolSpecs =
      request.clientTools === undefined ? turnTools.specs : [...turnTools.specs, ...request.clientTools];
    const afterFirstStep = laterStepSettings(request.settings);
    // The caller's token pays (a job's owner for cron, a run's owner for graphs, the spawning turn's caller for a
    // sub-agent), in the tenant the session is in.
    const payer = { tokenId: request.caller.clientId, tenantId: request.keyParts.tenantId };
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
          payer,
          signal: request.signal,
          ...(request.settings === undefined ? {} : { settings: step === 1 ? request.settings : afterFirstStep }),
        },
        { step, tally, trace, onDelta: request.onDelta, span: turn.span },
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
        transcript.store(...notRun(capped, 'max_tool_calls'));
        return handOver(turn, allowed, forClient);
      }
      const repeated = repeats.check(allowed);
      if (repeated !== undefined) return stopBeforeTools(turn, toolCalls, 'context_loop', repeated);

      transcript.add(
        ...(await runToolStep({ tools: turnTools, hooks, now }, allowed, {
          request,
          hookCtx: turn.hookCtx,
          step,
          tally,
          trace,
          toolLimits,
          span: turn.span,
        })),
        ...notRun(capped, 'max_tool_calls'),
      );
      await transcript.save();
      if (request.signal.aborted) return finish(turn, 'aborted');
    }
    return finish(turn, 'max_steps');
  }

  return {
    async run({ request, agent, models, history, unstored, ownerId }) {
      const { sessionKey } = request;
      const channel = request.keyParts.channelId;
      // Resolved once per turn; a list without source entries (mcp:) comes back at once, without an await.
      const listed = deps.tools.forTurn(offeredToolNames(agent.config));
      const turnTools = 'then' in listed ? await listed : listed;
      if (request.clientTools !== undefined) assertNoToolClash(turnTools.specs, request.clientTools);
      const toolResults = resultsForOpenCalls(history, request.toolOutputs ?? [], now());
      const traceId = randomUUID();
      const startedAt = now();
      const transcript = createTurnTranscript(
        request.stateless === true ? discard : (messages) => deps.store.append(sessionKey, messages, now()),
      );
      transcript.store(...unstored);
      const traceEntry: SessionIndexStart = {
        traceId,
        sessionKey,
        agentId: agent.id,
        channel,
        startedAt: now(),
        isSynthetic: request.isSynthetic ?? false,
      };
      if (request.messageId !== undefined) traceEntry.messageId = request.messageId;
      if (request.rootRunId !== undefined) traceEntry.rootRunId = request.rootRunId;
      const trace = startTurnTrace({ recorder, events, now }, traceEntry);
      events.emit('message:received', {
        agentId: agent.id,
        sessionKey,
        channelId: channel,
        ...(request.channelType === undefined ? {} : { channelType: request.channelType }),
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
        startedAt,
      };
      if (deps.tracer !== undefined)
        turn.span = deps.tracer.startTurn({ agentId: agent.id, turnId: traceId, sessionKey });
      for (const { toolName, reason } of turnTools.unavailable)
        trace.toolUnavailable(toolName, 'mcp_unavailable', reason);

      const model = models.primary;
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
        return await steps(turn, model, models.fallbacks, history, turnTools);
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
