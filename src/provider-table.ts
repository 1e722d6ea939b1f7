// The provider table: every provider type the config accepts and what it can do, as data. The wire adapters, the
// router, embedders, served-window discovery, audio engines, the credential check and the config schema read these
// rows and never branch on a type's name; adding a type is a row here (and a protocol in providers/wire if it speaks
// a new one). A leaf beside errors.ts (it imports nothing of ours), so config, below the providers, reads it too.

/** Every `providers.<name>.type` the config accepts: the keys of PROVIDER_TABLE. */
export const PROVIDER_TYPES = ['openai', 'anthropic', 'google', 'openai-compatible'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** The protocols our wire adapters speak (src/providers/wire), each with its own credential header. */
export type WireProtocol = 'openai-chat' | 'anthropic-messages' | 'google-gemini';

/**
 * What a call may ask beyond messages and tools, as the paths a refusal names (`sampling.` is dropped in the
 * 400), in the order a refusal lists them. `parallelToolCalls` is asked only as `false`: parallel calls are
 * what every protocol does unasked.
 */
export const CALL_FIELDS = [
  'sampling.temperature',
  'sampling.topP',
  'sampling.maxOutputTokens',
  'sampling.stop',
  'sampling.seed',
  'sampling.presencePenalty',
  'sampling.frequencyPenalty',
  'sampling.logitBias',
  'responseFormat.json_object',
  'responseFormat.json_schema',
  'toolChoice',
  'parallelToolCalls',
  'reasoningEffort',
  'serviceTier',
  'promptCacheKey',
  'safetyIdentifier',
  'verbosity',
] as const;
export type CallField = (typeof CALL_FIELDS)[number];

/**
 * Where a server says how large a context window it serves: an OpenAI-style GET /models entry, that and then
 * Ollama's POST /api/show for a server reached at `<origin>/v1`, or Gemini's model resource.
 */
export type ServedWindowSource = 'model-list' | 'model-list-or-ollama-show' | 'model-info';

export interface ProviderCapabilities {
  protocol: WireProtocol;
  /** Where the provider is reached when `baseUrl` is not set. */
  defaultBaseUrl: string;
  /** The request field of the output ceiling, where the protocol's server wants another than its usual one. */
  maxTokensField?: 'max_completion_tokens';
  /** The server refuses a call without an output ceiling: the catalog's maxTokens goes when the request sets none. */
  requiresMaxTokens: boolean;
  /** Has an embeddings endpoint, so `embeddings.provider` may name it. */
  canEmbed: boolean;
  /** Has /audio/transcriptions, so an `openai-compatible` audio engine may use it. */
  canTranscribe: boolean;
  /**
   * A server the operator runs: usable only once `baseUrl` points at it, and without a key. Otherwise the
   * provider is a hosted service that needs an apiKey.
   */
  selfHosted: boolean;
  /**
   * How the served window is read for the boot posture row; absent: the server never says, so it is not asked.
   * `atDefaultBaseUrl: false`: only a server the config points elsewhere is asked.
   */
  servedWindow?: { source: ServedWindowSource; atDefaultBaseUrl: boolean };
  /** The call fields it honours; a call asking another is refused naming it, never sent with the field dropped. */
  honours: readonly CallField[];
}

export const PROVIDER_TABLE: { readonly [T in ProviderType]: ProviderCapabilities } = {
  openai: {
    protocol: 'openai-chat',
    defaultBaseUrl: 'https://api.openai.com/v1',
    // OpenAI's reasoning models refuse max_tokens; it still accepts max_completion_tokens for its other models.
    maxTokensField: 'max_completion_tokens',
    requiresMaxTokens: false,
    canEmbed: true,
    canTranscribe: true,
    selfHosted: false,
    // OpenAI's own model list does not say how large a window is served; asking would only send the key out at
    // every boot. An `openai` provider pointed elsewhere (a self-hosted server) is asked.
    servedWindow: { source: 'model-list', atDefaultBaseUrl: false },
    honours: CALL_FIELDS,
  },
  anthropic: {
    protocol: 'anthropic-messages',
    defaultBaseUrl: 'https://api.anthropic.com/v1',
    requiresMaxTokens: true,
    canEmbed: false,
    canTranscribe: false,
    selfHosted: false,
    // Its model list does not say how large a window is served.
    // The Messages API has no seed, penalties, logit bias or json_object; its `service_tier` knows only `auto` and
    // `standard_only`, none of OpenAI's tiers; its prompt caching is by `cache_control` marks, not a key.
    honours: [
      'sampling.temperature',
      'sampling.topP',
      'sampling.maxOutputTokens',
      'sampling.stop',
      'responseFormat.json_schema',
      'toolChoice',
      'parallelToolCalls',
      'safetyIdentifier',
    ],
  },
  google: {
    protocol: 'google-gemini',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    requiresMaxTokens: false,
    canEmbed: true,
    canTranscribe: false,
    selfHosted: false,
    servedWindow: { source: 'model-info', atDefaultBaseUrl: true },
    // Gemini calls functions in parallel as it sees fit, with no switch to forbid it; nor has generateContent a
    // logit bias, processing tier, prompt cache key, end-user id or verbosity.
    honours: [
      'sampling.temperature',
      'sampling.topP',
      'sampling.maxOutputTokens',
      'sampling.stop',
      'sampling.seed',
      'sampling.presencePenalty',
      'sampling.frequencyPenalty',
      'responseFormat.json_object',
      'responseFormat.json_schema',
      'toolChoice',
    ],
  },
  'openai-compatible': {
    protocol: 'openai-chat',
    // A local Ollama, the most common keyless server (DESIGN.md §2 uses it in the sample config).
    defaultBaseUrl: 'http://127.0.0.1:11434/v1',
    requiresMaxTokens: false,
    canEmbed: true,
    canTranscribe: true,
    selfHosted: true,
    servedWindow: { source: 'model-list-or-ollama-show', atDefaultBaseUrl: true },
    honours: CALL_FIELDS,
  },
};
