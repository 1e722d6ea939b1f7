// The configured embedder: `embeddings: {provider, model}` through the provider's wire adapter (its embeddings endpoint),
// rebuilt live when that section or its provider changes.
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/index.js';
import { GatewayError } from '../errors.js';
import { classifyProviderError, statusCodeOf } from './error-kind.js';
import { providerAdapter, type ProvidersConfig } from './provider-config.js';
import { PROVIDER_TABLE } from '../provider-table.js';
import { describeFailure, upstreamFailureOf } from './router-errors.js';
import { formatModelRef, type Embedder, type EmbeddingResult, type ModelRef } from './types.js';

export interface EmbedderDeps {
  embeddings: GatewayConfig['embeddings'];
  providers: ProvidersConfig;
  log: Logger;
}

/**
 * Undefined when `embeddings:` is not configured (the /v1/embeddings route then answers 404). Throws at
 * startup when the configured provider's type cannot embed (its provider table row says so).
 */
export function createEmbedder({ embeddings, providers, log }: EmbedderDeps): Embedder | undefined {
  if (embeddings === undefined) return undefined;
  const providerConfig = providers[embeddings.provider];
  if (providerConfig === undefined) {
    throw new GatewayError('invalid_params', `embeddings.provider: unknown provider '${embeddings.provider}'`, {
      param: 'embeddings.provider',
    });
  }
  const ref: ModelRef = { provider: embeddings.provider, modelId: embeddings.model };
  if (!PROVIDER_TABLE[providerConfig.type].canEmbed) {
    throw new GatewayError(
      'invalid_params',
      `embeddings.provider: '${embeddings.provider}' is a ${providerConfig.type} provider, which has no embeddings endpoint`,
      { param: 'embeddings.provider' },
    );
  }
  // Its own keep-alive pool, built once; idle sockets do not hold the process open.
  const adapter = providerAdapter(providerConfig);
  const embed = adapter.embed?.bind(adapter);
  if (embed === undefined)
    throw new GatewayError('invalid_params', `embeddings.provider: '${embeddings.provider}' cannot embed`, {
      param: 'embeddings.provider',
    });

  return {
    model: embeddings.model,
    async embed(texts, signal, options = {}) {
      if (texts.length === 0) return { vectors: [], model: embeddings.model };
      signal.throwIfAborted();
      const { dimensions } = options;
      let result: EmbeddingResult;
      try {
        result = await embed({
          modelId: embeddings.model,
          texts,
          signal,
          ...(dimensions === undefined ? {} : { dimensions }),
        });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const kind = classifyProviderError(error);
        log.warn(
          { model: formatModelRef(ref), errorKind: kind, statusCode: statusCodeOf(error) },
          'embedding call failed',
        );
        const failure = upstreamFailureOf(ref, kind, error, [providerConfig.apiKey]);
        throw new GatewayError(
          'upstream_failed',
          `Embedding call to ${formatModelRef(ref)} failed: ${describeFailure(failure)}`,
          {
            errorKind: kind,
            ...(failure.statusCode === undefined ? {} : { statusCode: failure.statusCode }),
            ...(failure.message === undefined ? {} : { upstreamMessage: failure.message }),
          },
          { cause: error },
        );
      }
      // A server that ignores `dimensions` answers its full length; passing that on would drop the caller's ask silently.
      const wrong =
        dimensions === undefined ? undefined : result.vectors.find((vector) => vector.length !== dimensions);
      if (wrong !== undefined) {
        throw new GatewayError(
          'upstream_failed',
          `Embedding provider '${ref.provider}' answered ${wrong.length} dimensions, not the ${dimensions} asked for in 'dimensions'`,
          { param: 'dimensions' },
        );
      }
      return result;
    },
  };
}

/** The embedder of the config as it is now: /v1/embeddings and memory read `current()` at each use. */
export interface LiveEmbedder {
  /** Undefined while `embeddings:` is not configured. */
  current(): Embedder | undefined;
  /** Rebuilds the embedder when `embeddings:` or the provider it names changed; an unusable one is logged and leaves none. */
  reload(config: Pick<GatewayConfig, 'embeddings' | 'providers'>): void;
}

/** What the embedder is built from: a change elsewhere in providers keeps the one built (and its keep-alive pool). */
const sourceOf = ({ embeddings, providers }: Pick<GatewayConfig, 'embeddings' | 'providers'>) =>
  embeddings === undefined ? undefined : { embeddings, provider: providers[embeddings.provider] };

/** Throws at startup, as createEmbedder does, when the configured provider cannot embed. */
export function createLiveEmbedder({ embeddings, providers, log }: EmbedderDeps): LiveEmbedder {
  let source = sourceOf({ embeddings, providers });
  let embedder = createEmbedder({ embeddings, providers, log });
  return {
    current: () => embedder,
    reload(config) {
      const next = sourceOf(config);
      if (isDeepStrictEqual(next, source)) return;
      source = next;
      try {
        embedder = createEmbedder({ embeddings: config.embeddings, providers: config.providers, log });
        log.info({ embeddings: config.embeddings ?? null }, 'embeddings applied');
      } catch (error) {
        embedder = undefined;
        log.error(
          { err: error },
          'embeddings cannot be used; /v1/embeddings answers 404 and memory uses the built-in embedder until the config is fixed',
        );
      }
    },
  };
}
