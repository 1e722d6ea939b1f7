// What the turn loop asks of tracing: a span per turn, per model call and per tool call (GenAI semantic conventions).

/** A model as the spans name it: the configured provider id and the model id. */
export interface TracedModel {
  provider: string;
  modelId: string;
}

export interface ChatSpan {
  /** The call answered: the model that did, its token usage and why it stopped; `text` only kept with captureContent. */
  answered(call: {
    model: TracedModel;
    inputTokens: number;
    outputTokens: number;
    finishReason: string;
    text: string;
    toolCalls: readonly { id: string; name: string; input: unknown }[];
  }): void;
}

export interface ToolSpan {
  /** The call's outcome; `content` only kept with captureContent. */
  finished(outcome: { ok: boolean; errorKind?: string | undefined; content: string }): void;
}

/** One turn's `invoke_agent` span and the spans under it. */
export interface TurnSpan {
  /**
   * Runs one model call as a `chat` span: `run` runs in the span's trace, so the provider request carries its
   * traceparent. A throw ends the span with an error status and is rethrown.
   */
  chat<T>(
    request: { model: TracedModel; messages: readonly { role: string; content: string }[] },
    run: (span: ChatSpan) => Promise<T>,
  ): Promise<T>;
  /** Runs one tool call as an `execute_tool` span; a turn the tool starts (a sub-agent) nests under it. */
  tool<T>(call: { id: string; name: string; input: unknown }, run: (span: ToolSpan) => Promise<T>): Promise<T>;
  end(outcome: { finishReason: string; error?: string | undefined }): void;
}

export interface TurnTracer {
  /** Starts a turn's span in the trace the current work runs in (a new trace outside any). */
  startTurn(turn: { agentId: string; turnId: string; sessionKey: string }): TurnSpan;
}

/** The tracing a running gateway has: absent entirely while otel.endpoint is unset. */
export interface Tracing {
  turns: TurnTracer;
  /** The traceparent a provider request made now sends, when it runs in a traced model call. */
  upstreamTraceparent(): string | undefined;
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}
