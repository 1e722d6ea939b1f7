// One model call of a turn: streams text deltas to the caller, collects tool calls, and adds the call's usage to the tally.
import type { ModelRouter, RoutedCallRequest, TranscriptMessage, TranscriptToolCall } from '../providers/index.js';
import type { TurnTally } from './turn-tally.js';
import type { TurnTrace } from './turn-trace.js';
import type { ChatSpan, TurnSpan } from '../tracing/index.js';

export interface ModelStepOutput {
  text: string;
  toolCalls: TranscriptToolCall[];
}

export async function runModelStep(
  router: Pick<ModelRouter, 'stream'>,
  call: RoutedCallRequest,
  {
    step,
    tally,
    trace,
    onDelta,
    span,
  }: {
    step: number;
    tally: TurnTally;
    trace: TurnTrace;
    onDelta?: ((delta: string) => void | Promise<void>) | undefined;
    /** The turn's span while tracing is on: the call runs as its `chat` span. */
    span?: TurnSpan | undefined;
  },
): Promise<ModelStepOutput> {
  if (span === undefined) return streamModelStep(router, call, step, tally, trace, onDelta);
  const messages =
    call.system === undefined ? call.messages : [{ role: 'system', content: call.system }, ...call.messages];
  return span.chat({ model: call.primary, messages }, (chat) =>
    streamModelStep(router, call, step, tally, trace, onDelta, chat),
  );
}

async function streamModelStep(
  router: Pick<ModelRouter, 'stream'>,
  call: RoutedCallRequest,
  step: number,
  tally: TurnTally,
  trace: TurnTrace,
  onDelta: ((delta: string) => void | Promise<void>) | undefined,
  chat?: ChatSpan,
): Promise<ModelStepOutput> {
  let text = '';
  const toolCalls: TranscriptToolCall[] = [];
  for await (const event of router.stream(call)) {
    if (event.type === 'text-delta') {
      text += event.text;
      // A consumer that is behind (a client not reading) pauses the upstream read here: backpressure.
      const isConsumed = onDelta?.(event.text);
      if (isConsumed instanceof Promise) await isConsumed;
    } else if (event.type === 'tool-call') {
      toolCalls.push({ id: event.toolCallId, name: event.toolName, input: event.input });
    } else {
      tally.inputTokens += event.usage.inputTokens;
      tally.outputTokens += event.usage.outputTokens;
      tally.costUsd += event.costUsd;
      tally.lastModelFinish = event.finishReason;
      trace.modelCall(step, {
        model: event.model,
        usage: event.usage,
        costUsd: event.costUsd,
        latencyMs: event.latencyMs,
        finishReason: event.finishReason,
        toolCalls: toolCalls.length,
        textChars: text.length,
      });
      chat?.answered({
        model: event.model,
        inputTokens: event.usage.inputTokens,
        outputTokens: event.usage.outputTokens,
        finishReason: event.finishReason,
        text,
        toolCalls,
      });
    }
  }
  tally.text += text;
  return { text, toolCalls };
}

/** The messages of one model call: what `beforeModel` hooks added, in front of the fitted history, for this call only. */
export function withHookContext(
  added: readonly (readonly TranscriptMessage[])[],
  messages: TranscriptMessage[],
): TranscriptMessage[] {
  return added.length === 0 ? messages : [...added.flat(), ...messages];
}
