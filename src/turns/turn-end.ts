// How a running turn ends: its last transcript write queued, its evidence closed, message:sent and the delivery told,
// and the result built; with the `not run` results every tool call of the transcript needs when the turn stops first.
import type { TurnHookContext } from './types.js';
import type { EventBus } from '../events/index.js';
import type { AgentDefinition } from '../agents/index.js';
import type { DeliveryRecorder } from '../obs/index.js';
import type { TranscriptMessage, TranscriptToolCall } from '../providers/index.js';
import { endReasonOf, type TurnTally } from './turn-tally.js';
import type { TurnTrace } from './turn-trace.js';
import type { TurnTranscript } from './turn-transcript.js';
import type { TurnSpan } from '../tracing/index.js';
import type { FinishReason, TurnRequest, TurnResult } from './types.js';

/** The parts of one running turn every step reads. */
export interface Turn {
  request: TurnRequest;
  agent: AgentDefinition;
  trace: TurnTrace;
  tally: TurnTally;
  transcript: TurnTranscript;
  hookCtx: TurnHookContext;
  startedAt: number;
  /** The turn's invoke_agent span while tracing is on. */
  span?: TurnSpan;
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

export interface TurnEndDeps {
  events: EventBus;
  /** Told when the turn's reply is sent, with the facts only the turn knows (receive time, channel, trace). */
  delivery?: DeliveryRecorder;
  now: () => number;
}

export interface TurnEnds {
  finish(turn: Turn, finishReason: FinishReason, error?: string, endReason?: string): LoopOutcome;
  /** Tool results saying the calls were not run, and why. */
  notRun(calls: readonly TranscriptToolCall[], why: string): TranscriptMessage[];
  /** Stores the calls' `not run` results, then ends the turn with `reason`. */
  stopBeforeTools(turn: Turn, calls: readonly TranscriptToolCall[], reason: FinishReason, error?: string): LoopOutcome;
  /** Ends the turn with `tool_calls`, handing the client's calls to the caller. */
  handOver(turn: Turn, calls: readonly TranscriptToolCall[], forClient: TranscriptToolCall[]): LoopOutcome;
}

export function createTurnEnds({ events, delivery, now }: TurnEndDeps): TurnEnds {
  function finish(
    turn: Turn,
    finishReason: FinishReason,
    error?: string,
    endReason = endReasonOf(finishReason, turn.tally),
  ): LoopOutcome {
    const { tally, request, agent, trace } = turn;
    const { sessionKey } = request;
    const channelId = request.keyParts.channelId;
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
    turn.span?.end({ finishReason, error });
    events.emit('message:sent', {
      agentId: agent.id,
      sessionKey,
      channelId,
      ...(request.channelType === undefined ? {} : { channelType: request.channelType }),
      traceId: trace.traceId,
      chars: tally.text.length,
      finishReason,
    });
    if (request.deliversReply !== true)
      delivery?.replied({ channelId, sessionKey, traceId: trace.traceId, receivedAt: turn.startedAt });
    const result: TurnResult = {
      response: tally.text,
      tokensUsed: {
        input: tally.inputTokens,
        output: tally.outputTokens,
        total: tally.inputTokens + tally.outputTokens,
      },
      finishReason,
      agentId: agent.id,
      sessionKey,
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

  return {
    finish,
    notRun,
    stopBeforeTools(turn, calls, reason, error) {
      turn.transcript.store(...notRun(calls, reason));
      return finish(turn, reason, error);
    },
    /**
     * The agent's own calls of the same step are not run: their results would reach the model only after the
     * caller's, so the model asks again if it still needs them.
     */
    handOver(turn, calls, forClient) {
      turn.transcript.store(
        ...notRun(
          calls.filter((call) => !forClient.includes(call)),
          "the turn ended for the client's tool calls",
        ),
      );
      const { result, stored } = finish(turn, 'tool_calls');
      return { result: { ...result, toolCalls: forClient }, stored };
    },
  };
}
