// One agent turn (callers serialise turns per session): history + message → model → tools → model … until an answer or a limit (steps, tokens, loop, context).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { GatewayError, isGatewayError, notFound } from '../errors.js';
import type { EventBus } from '../obs/event-bus.js';
import type { DeliveryRecorder, Recorder } from '../obs/index.js';
import type { ModelRef, ModelRouter } from '../providers/types.js';
import { assertSessionAccess } from '../sessions/session-access.js';
import { deriveSessionKind, parseSessionKey } from '../sessions/session-key.js';
import type { SessionStore } from '../sessions/types.js';
import type { TranscriptMessage, TranscriptToolCall } from '../sessions/transcript.js';
import { fitContext } from './context-budget.js';
import type { ToolRegistry } from './tools/tool-registry.js';
import { startTurnTrace, type TurnTrace } from './turn-trace.js';
import type { AgentDefinition, AgentRegistry, FinishReason, TurnRequest, TurnResult, TurnRunner } from './types.js';

export interface TurnLoopDeps {
  agents: AgentRegistry;
  router: ModelRouter;
  sessions: SessionStore;
  tools: ToolRegistry;
  events: EventBus;
  recorder: Recorder;
  /** Told when the turn's reply is sent, with the facts only the turn knows (receive time, channel, trace). */
  delivery?: DeliveryRecorder;
  log: Logger;
  now: () => number;
}

/** The same tool call with the same arguments this many times in one turn ends it with context_loop. */
export const LOOP_REPEAT_LIMIT = 3;

/** Used when the catalog does not know the model (e.g. an unlisted id on an openai-compatible server). */
const DEFAULT_CONTEXT_WINDOW = 128_000;
const DEFAULT_OUTPUT_HEADROOM = 4096;

interface TurnState {
  text: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  steps: number;
  toolFailures: number;
  lastModelFinish: string;
}


/** The report's endReason for a finished turn (obs.explain): finer than the client-facing finish reason. */
function endReasonOf(finishReason: FinishReason, state: TurnState): string {
  if (finishReason === 'stop') {
    if (state.lastModelFinish === 'length') return 'output_starved';
    return state.toolFailures > 0 ? 'completed_with_tool_errors' : 'completed';
  }
  return finishReason;
}

export function createTurnLoop({ agents, router, sessions, tools, events, recorder, delivery, log, now }: TurnLoopDeps): TurnRunner {
  function resolveAgent(agentId: string | undefined): AgentDefinition {
    const id = agentId ?? agents.defaultAgentId();
    if (id === undefined) {
      throw new GatewayError('unavailable', 'No agent configured: add one under `agents:` in config.yaml or create one with agents.create', { reason: 'no_agent' });
    }
    const agent = agents.get(id);
    if (agent === undefined) throw notFound(`Agent '${id}' not found`, { param: 'agentId' });
    if (agent.status === 'suspended') {
      throw new GatewayError('conflict', `Agent '${id}' is suspended and accepts no new messages; resume it with agents.resume`, { param: 'agentId' });
    }
    return agent;
  }

  function modelOf(agent: AgentDefinition, override: ModelRef | undefined): ModelRef | undefined {
    if (override !== undefined) return override;
    const { provider, model } = agent.config;
    if (model === undefined) return undefined;
    if (provider !== undefined) return { provider, modelId: model };
    return router.resolve(model);
  }

  async function runTurn(request: TurnRequest, agent: AgentDefinition): Promise<TurnResult> {
    const { sessionKey } = request;
    const traceId = randomUUID();
    const keyParts = parseSessionKey(sessionKey, 'sessionKey');
    // Creates the session for the caller, or finds an existing one that must be theirs: the one owner check
    // every turn surface passes, before anything of the turn is written.
    const { session, created } = sessions.ensure({ sessionKey, agentId: agent.id, tenantId: keyParts.tenantId, kind: deriveSessionKind(keyParts), createdAt: now(), metadata: {}, ownerId: request.caller.clientId });
    if (!created) assertSessionAccess(session, request.caller);
    // The turn's transcript is written once per step (one transaction), not once per message.
    const unsaved: TranscriptMessage[] = [];
    const save = () => {
      if (unsaved.length > 0) sessions.append(sessionKey, unsaved.splice(0), now());
    };
    let history: TranscriptMessage[] = [];
    if (created) {
      events.emit('session:created', { sessionKey, agentId: agent.id });
      if (request.seedHistory !== undefined) {
        history = [...request.seedHistory];
        unsaved.push(...request.seedHistory);
      }
    } else {
      history = sessions.history(sessionKey);
    }
    const startedAt = now();
    const trace = startTurnTrace({ recorder, events, now }, { traceId, sessionKey, agentId: agent.id, channel: keyParts.channelId, isSynthetic: request.isSynthetic ?? false, ...(request.messageId === undefined ? {} : { messageId: request.messageId }), ...(request.rootRunId === undefined ? {} : { rootRunId: request.rootRunId }) });
    events.emit('message:received', { agentId: agent.id, sessionKey, chars: request.message.length });

    const userMessage: TranscriptMessage = { role: 'user', content: request.message, timestamp: now() };
    unsaved.push(userMessage);
    const state: TurnState = { text: '', inputTokens: 0, outputTokens: 0, costUsd: 0, steps: 0, toolFailures: 0, lastModelFinish: 'stop' };
    const finish = (finishReason: FinishReason, error?: string, endReason = endReasonOf(finishReason, state)): TurnResult => {
      save();
      trace.end({ finishReason, endReason, steps: state.steps, inputTokens: state.inputTokens, outputTokens: state.outputTokens, costUsd: state.costUsd, toolFailures: state.toolFailures });
      events.emit('message:sent', { agentId: agent.id, sessionKey, traceId, chars: state.text.length, finishReason });
      delivery?.replied({ channelId: keyParts.channelId, sessionKey, traceId, receivedAt: startedAt });
      return {
        response: state.text,
        tokensUsed: { input: state.inputTokens, output: state.outputTokens, total: state.inputTokens + state.outputTokens },
        finishReason,
        agentId: agent.id,
        sessionKey,
        traceId,
        costUsd: state.costUsd,
        steps: state.steps,
        ...(error === undefined ? {} : { error }),
      };
    };

    const model = modelOf(agent, request.model);
    if (model === undefined) {
      return finish('error', router.providers().length === 0
        ? 'No LLM provider configured: add one under `providers:` in config.yaml and set the agent\'s provider and model (see README, "Configuration")'
        : `Agent '${agent.id}' has no model: set agents.${agent.id}.model`);
    }
    try {
      return await loop({ request, agent, model, history, userMessage, trace, state, finish, unsaved, save });
    } catch (error) {
      const result = finish(...classifyFailure(error, request.signal, trace, { step: state.steps, elapsedMs: now() - startedAt }, log));
      // An open breaker says when to come back; /v1 turns it into Retry-After.
      const retryAfterMs = isGatewayError(error) && error.details.reason === 'circuit_open' ? error.details.retryAfterMs : undefined;
      return retryAfterMs === undefined ? result : { ...result, retryAfterMs };
    }
  }

  async function loop(turn: {
    request: TurnRequest;
    agent: AgentDefinition;
    model: ModelRef;
    history: TranscriptMessage[];
    userMessage: TranscriptMessage;
    trace: TurnTrace;
    state: TurnState;
    finish: (reason: FinishReason, error?: string, endReason?: string) => TurnResult;
    unsaved: TranscriptMessage[];
    save: () => void;
  }): Promise<TurnResult> {
    const { request, agent, model, history, trace, state, finish, unsaved, save } = turn;
    const { config } = agent;
    const entry = router.entry(model);
    const windowTokens = entry?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
    const outputHeadroom = Math.min(request.maxOutputTokens ?? entry?.maxTokens ?? DEFAULT_OUTPUT_HEADROOM, windowTokens);
    const system = request.systemPrompt ?? config.systemPrompt;
    const fallbacks = request.model === undefined ? config.fallbackModels.flatMap((name) => router.resolve(name) ?? []) : [];
    const toolSpecs = tools.specs(config.tools);
    const freshTail: TranscriptMessage[] = [turn.userMessage];
    const callCounts = new Map<string, number>();

    for (let step = 1; step <= config.maxSteps; step += 1) {
      const { budget, messages } = fitContext({ windowTokens, windowCapSource: entry === undefined ? 'none' : 'served', outputHeadroom, system, history, freshTail });
      trace.contextBudget(step, budget);
      if (budget.verdict === 'exhausted') {
        return finish('context_exhausted', `The message and system prompt need ${budget.assembledInputTokens + outputHeadroom} tokens; the model's context window is ${windowTokens}`);
      }
      state.steps = step;
      let stepText = '';
      const toolCalls: TranscriptToolCall[] = [];
      events.emit('message:streaming', { agentId: agent.id, sessionKey: request.sessionKey, step });
      for await (const event of router.stream({
        primary: model,
        fallbacks,
        system,
        messages,
        tools: toolSpecs,
        agentId: agent.id,
        sessionKey: request.sessionKey,
        signal: request.signal,
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
      })) {
        if (event.type === 'text-delta') {
          stepText += event.text;
          request.onDelta?.(event.text);
        } else if (event.type === 'tool-call') {
          toolCalls.push({ id: event.toolCallId, name: event.toolName, input: event.input });
        } else {
          state.inputTokens += event.usage.inputTokens;
          state.outputTokens += event.usage.outputTokens;
          state.costUsd += event.costUsd;
          state.lastModelFinish = event.finishReason;
          trace.modelCall(step, { model: event.model, usage: event.usage, costUsd: event.costUsd, latencyMs: event.latencyMs, finishReason: event.finishReason, toolCalls: toolCalls.length, textChars: stepText.length });
        }
      }
      state.text += stepText;
      const assistant: TranscriptMessage = { role: 'assistant', content: stepText, timestamp: now(), ...(toolCalls.length > 0 ? { toolCalls } : {}) };
      freshTail.push(assistant);
      unsaved.push(assistant);

      // Every tool call in the transcript needs a result, or the next turn's prompt is invalid; calls a limit
      // stops are answered with an error result before the turn ends.
      const stopBeforeTools = (reason: FinishReason, error?: string): TurnResult => {
        unsaved.push(...toolCalls.map((call): TranscriptMessage => ({ role: 'tool', toolCallId: call.id, toolName: call.name, content: `Error: not run (${reason})`, isError: true, timestamp: now() })));
        return finish(reason, error);
      };
      if (state.inputTokens + state.outputTokens > config.budget.maxTokensPerTurn) return stopBeforeTools('budget_exceeded');
      if (toolCalls.length === 0) return finish('stop');

      for (const call of toolCalls) {
        const signature = `${call.name}\u0000${JSON.stringify(call.input)}`;
        const seen = (callCounts.get(signature) ?? 0) + 1;
        callCounts.set(signature, seen);
        if (seen >= LOOP_REPEAT_LIMIT) return stopBeforeTools('context_loop', `${call.name} was called ${seen} times with the same arguments`);
      }
      const results: TranscriptMessage[] = [];
      for (const call of toolCalls) {
        const outcome = await tools.execute(call.name, call.input, {
          agentId: agent.id,
          sessionKey: request.sessionKey,
          signal: request.signal,
          caller: request.caller,
        });
        trace.toolCall(step, call.name, outcome);
        if (!outcome.ok) state.toolFailures += 1;
        results.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content: outcome.content, isError: !outcome.ok, timestamp: now() });
      }
      freshTail.push(...results);
      unsaved.push(...results);
      save();
      if (request.signal.aborted) return finish('aborted');
    }
    return finish('max_steps');
  }

  return {
    async run(request) {
      return runTurn(request, resolveAgent(request.agentId));
    },
  };
}

/** The finish reason, the message and (for timeouts) the report's endReason of a turn that threw. */
function classifyFailure(
  error: unknown,
  signal: AbortSignal,
  trace: TurnTrace,
  { step, elapsedMs }: { step: number; elapsedMs: number },
  log: Logger,
): [FinishReason, string, string?] {
  if (signal.aborted) {
    trace.modelError(step, { kind: 'aborted' });
    return ['aborted', 'The turn was cancelled'];
  }
  if (isGatewayError(error)) {
    const { reason, errorKind, timeoutMs, model } = error.details;
    trace.modelError(step, {
      kind: error.kind,
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(typeof errorKind === 'string' ? { providerErrorKind: errorKind } : {}),
    });
    if (reason === 'circuit_open') return ['circuit_open', error.message];
    if (errorKind === 'timeout') {
      const provider = typeof model === 'string' ? model.split('/')[0] : undefined;
      trace.promptTimeout({
        elapsedMs,
        ...(typeof timeoutMs === 'number' ? { budgetMs: timeoutMs } : {}),
        ...(provider === undefined ? {} : { knob: `providers.${provider}.timeoutMs` }),
      });
      return ['error', error.message, 'timeout'];
    }
    if (error.kind !== 'internal') return ['error', error.message];
  }
  log.error({ err: error }, 'turn failed');
  trace.modelError(step, { kind: 'internal' });
  return ['error', 'Internal error'];
}
