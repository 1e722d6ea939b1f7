// Every fixed limit of the model router and provider adapters, with its unit and default; per-provider
// timeoutMs and maxResponseBytes are in the providers: config instead.

export const PROVIDER_LIMITS = {
  /** Consecutive failures that open a provider's circuit breaker. */
  breakerFailureThreshold: 3,
  /** Time an open breaker waits before letting one probe call through, in ms. */
  breakerCooldownMs: 30_000,
  /** How long a provider is skipped after a 401/403, in ms. */
  authCooldownMs: 60_000,
  /** Each served-window discovery request gets this long, in ms; discovery runs after listen and never delays startup. */
  servedWindowTimeoutMs: 5_000,
  /** A model list larger than this many bytes is not read (OpenRouter's full list is about 1 MB). */
  modelListMaxBytes: 4 * 1024 * 1024,
  /** Vector length of the built-in hashing embedder. */
  hashingEmbedderDimensions: 256,
  /** The most dimensions a caller may ask the hashing embedder for (OpenAI's largest model makes 3072). */
  hashingEmbedderMaxDimensions: 4096,
};
