// The wire adapter seam: one streamed model call in our terms, and the events every protocol adapter yields.
import type { ProviderCapabilities, WireProtocol } from '../../provider-table.js';
import type { TranscriptMessage } from '../transcript.js';
import type { ModelFinishReason, TokenUsage, ToolSpec } from '../types.js';
import type { WireHttp } from './http.js';
import type {
  WireReasoningEffort,
  WireResponseFormat,
  WireSampling,
  WireServiceTier,
  WireToolChoice,
  WireVerbosity,
} from './call-settings.js';

export type { WireProtocol } from '../../provider-table.js';
export type {
  WireReasoningEffort,
  WireResponseFormat,
  WireSampling,
  WireServiceTier,
  WireToolChoice,
  WireVerbosity,
} from './call-settings.js';

/** What a caller may ask of one call beyond messages and tools; each protocol maps what it can and names the rest (unsupported). */
export interface WireCallOptions {
  sampling: WireSampling;
  responseFormat?: WireResponseFormat;
  /** Sent only when tools are offered: every protocol refuses a tool choice without tools. */
  toolChoice?: WireToolChoice;
  parallelToolCalls?: boolean;
  reasoningEffort?: WireReasoningEffort;
  serviceTier?: WireServiceTier;
  /** OpenAI's key for routing requests that share a long prefix to the same prompt cache (`prompt_cache_key`). */
  promptCacheKey?: string;
  /**
   * A stable opaque id of the end user, for the provider's abuse detection: OpenAI's `safety_identifier`,
   * Anthropic's `metadata.user_id`.
   */
  safetyIdentifier?: string;
  verbosity?: WireVerbosity;
}

export interface WireCallRequest extends WireCallOptions {
  modelId: string;
  /** Joined with the transcript's own system messages, which every protocol receives up front. */
  system: string | undefined;
  messages: readonly TranscriptMessage[];
  tools: readonly ToolSpec[];
  /** Aborting it closes the upstream request; the call then fails with kind `aborted`. */
  signal: AbortSignal;
  /**
   * Also yield each streamed piece of tool-call arguments as `tool-input-delta`, so the caller can bound a
   * reply whose arguments never end (output-limit.ts); off, the arguments are only seen whole.
   */
  reportToolInput?: boolean;
  /**
   * false asks for one whole JSON answer instead of a stream (models.test's round trip); the events are the
   * same. Default true.
   */
  stream?: boolean;
}

export type WireEvent =
  | { type: 'text-delta'; text: string }
  /** Emitted once the call's arguments are complete; `input` is the raw text when they are not valid JSON. */
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  /** Only when the request sets reportToolInput: one piece of a call's arguments as it arrives. */
  | { type: 'tool-input-delta'; text: string }
  | { type: 'finish'; finishReason: ModelFinishReason; usage: TokenUsage };

export interface WireEmbedRequest {
  modelId: string;
  texts: readonly string[];
  /** The vector length asked for (OpenAI `dimensions`, Gemini `outputDimensionality`); absent: the model's own. */
  dimensions?: number;
  signal: AbortSignal;
}

export interface WireEmbedResult {
  vectors: number[][];
  /** The model the provider reports, else the requested one. */
  model: string;
}

/**
 * One protocol spoken to one provider origin. Every failure of `stream` and `embed` is a ProviderCallError
 * (src/providers/wire/errors.ts); the caller's abort surfaces as kind `aborted` with the caller's reason as cause.
 */
export interface WireAdapter {
  readonly protocol: WireProtocol;
  /** The provider's pool and credential headers, for the few other requests made to it (served-window discovery). */
  readonly http: WireHttp;
  stream(request: WireCallRequest): AsyncGenerator<WireEvent>;
  /** Absent when the protocol has no embeddings endpoint (Anthropic). */
  embed?(input: WireEmbedRequest): Promise<WireEmbedResult>;
  /**
   * Options this protocol cannot honour, as paths into WireCallOptions (`sampling.seed`,
   * `responseFormat.json_object`, `parallelToolCalls` …), so the caller can answer a 400 naming field and
   * provider instead of dropping the field silently; [] when all fit.
   */
  unsupported(options: WireCallOptions): string[];
  /** Closes the provider's connection pool; in-flight calls fail. */
  close(): Promise<void>;
}

export interface WireAdapterOptions {
  /** Where the protocol's paths are appended, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Empty or absent: no credential header is sent (keyless local servers). */
  apiKey?: string | undefined;
  /** Bounds a whole call, request to last byte, in milliseconds. */
  timeoutMs: number;
  /** Extra headers on every request (e.g. OpenRouter's `HTTP-Referer`, `anthropic-beta`). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Anthropic requires max_tokens; used when the request sets no maxOutputTokens. Default 4096. */
  defaultMaxOutputTokens?: number | undefined;
  /** Connections kept per provider origin; default unlimited. */
  maxConnections?: number | undefined;
  /** The traceparent each model request sends while tracing is on (src/tracing). */
  traceparent?: (() => string | undefined) | undefined;
}

/** What a protocol adapter is built with: its provider type's table row, read once, and the provider's options. */
export interface WireSetup {
  /** The call fields the type does not honour, named (call-fields.ts): the adapter's unsupported(). */
  unsupported(options: WireCallOptions): string[];
  maxTokensField?: ProviderCapabilities['maxTokensField'];
  defaultMaxOutputTokens?: number | undefined;
}
