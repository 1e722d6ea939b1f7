// The model layer's seam: requests, streamed events, catalog entries and the router the turn loop calls.
import type { TranscriptMessage } from './transcript.js';
import type {
  WireReasoningEffort,
  WireResponseFormat,
  WireSampling,
  WireServiceTier,
  WireToolChoice,
  WireVerbosity,
} from './wire/call-settings.js';

export interface ModelRef {
  provider: string;
  modelId: string;
}

export const formatModelRef = (ref: ModelRef): string => `${ref.provider}/${ref.modelId}`;

/** A tool as the model sees it: name, description and a JSON Schema for its input. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Asks the provider to hold the call's arguments to the schema exactly (OpenAI's `strict`); sent where the protocol has it. */
  strict?: boolean;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export type ModelFinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'other';

export type ModelStreamEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | {
      type: 'finish';
      finishReason: ModelFinishReason;
      usage: TokenUsage;
      /** The model that actually answered (a fallback when the primary failed). */
      model: ModelRef;
      costUsd: number;
      latencyMs: number;
    };

/**
 * What a request may ask of the model beyond the agent's defaults: sampling, structured output and tool
 * choice, passed to the provider as they are (a provider that cannot honour one is refused, never ignored).
 */
export interface CallSettings extends WireSampling {
  responseFormat?: WireResponseFormat;
  toolChoice?: WireToolChoice;
  parallelToolCalls?: boolean;
  reasoningEffort?: WireReasoningEffort;
  serviceTier?: WireServiceTier;
  promptCacheKey?: string;
  safetyIdentifier?: string;
  verbosity?: WireVerbosity;
}

export interface RoutedCallRequest {
  primary: ModelRef;
  /** Tried in order when the primary fails before producing output. */
  fallbacks: readonly ModelRef[];
  system: string;
  messages: readonly TranscriptMessage[];
  tools: readonly ToolSpec[];
  settings?: CallSettings;
  agentId: string;
  sessionKey: string;
  /** Whose budgets the call counts against besides its agent's; absent: SYSTEM_PAYER's (src/budgets). */
  payer?: CallPayer;
  signal: AbortSignal;
}

/**
 * Who pays for a model or embedding call: the token (API key) whose request, job, run or session caused it and the
 * tenant it ran in. Budgets of scope token:<tokenId> and tenant:<tenantId> count it.
 */
export interface CallPayer {
  tokenId: string;
  tenantId: string;
}

/** How capable a model is (config `tier`): reflect synthesis abstains on small and nano. */
export type ModelTier = 'frontier' | 'small' | 'nano';

/** The spec's Model entry (JSON-RPC models.list), with the model's capability tier. */
export interface ModelCatalogEntry {
  provider: string;
  modelId: string;
  displayName: string;
  contextWindow: number;
  maxTokens: number;
  baseUrl: string | null;
  input: string[];
  reasoning: boolean;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
  validated: boolean;
  validatedAt: string | null;
  tier: ModelTier;
}

export interface ModelRouter {
  /**
   * Streams one model call. Throws GatewayError: `unavailable` with details.reason 'circuit_open' when every
   * candidate's breaker is open, 'no_provider' when none is configured; `upstream_failed` when all failed.
   */
  stream(request: RoutedCallRequest): AsyncIterable<ModelStreamEvent>;
  /** `<provider>/<modelId>` or a bare model id to a configured model, else undefined. */
  resolve(model: string): ModelRef | undefined;
  /**
   * The settings the provider of `ref` cannot honour, as CallSettings paths (`seed`, `responseFormat.json_object`,
   * `parallelToolCalls` …); [] when all fit or the provider is unknown (the call itself reports that).
   */
  unsupported(ref: ModelRef, settings: CallSettings): string[];
  catalog(): ModelCatalogEntry[];
  entry(ref: ModelRef): ModelCatalogEntry | undefined;
  providers(): string[];
  /** A one-shot round trip (models.test): never throws. */
  test(
    ref: ModelRef,
    signal: AbortSignal,
  ): Promise<{ ok: boolean; latencyMs: number; provider: string; error?: string }>;
}

export interface EmbeddingResult {
  vectors: number[][];
  /** The model id reported by the embedding provider. */
  model: string;
}

export interface EmbedOptions {
  /** The vector length asked for; absent: the model's own. An embedder that cannot make it refuses, naming it. */
  dimensions?: number;
  /** Whose budgets count the call's tokens (an embedding has no agent unless memory embeds for one); absent: the system's. */
  payer?: CallPayer & { agentId?: string };
}

export interface Embedder {
  readonly model: string;
  embed(texts: readonly string[], signal: AbortSignal, options?: EmbedOptions): Promise<EmbeddingResult>;
}

/** One model call as it ended (ModelRouterDeps.onModelCall): the model, when it started, its first output and its end. */
export interface ModelCallObservation {
  ref: ModelRef;
  startedAt: number;
  durationMs: number;
  /** Epoch ms of its first streamed output; undefined when none came. */
  firstOutputAt: number | undefined;
  /** The classified provider error of a failed call; undefined when it finished. */
  errorKind: string | undefined;
}
