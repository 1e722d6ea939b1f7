// The configured embedder: `embeddings: {provider, model}` through the provider's wire adapter (its embeddings endpoint).
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/index.js';
import { GatewayError } from '../errors.js';
import { classifyProviderError, statusCodeOf } from './error-kind.js';
import { providerAdapter, type ProvidersConfig } from './provider-config.js';
import { describeFailure, upstreamFailureOf } from './router-errors.js';
import { formatModelRef, type Embedder, type EmbeddingResult, type ModelRef } from './types.js';

export interface EmbedderDeps {
  embeddings: GatewayConfig['embeddings'];
  providers: ProvidersConfig;
  log: Logger;
}

/**
 * Undefined when `embeddings:` is not configured (the /v1/embeddings route then answers 404). Throws at
 * startup when the configured provider cannot embed (anthropic has no embeddings endpoint).
 */
export function createEmbedder({ embeddings, providers, log }: EmbedderDeps): Embedder | undefined {
  if (embeddings === undefined) return undefined;
  const providerConfig = providers[embeddings.provider];
  if (providerConfig === undefined) {
    throw new GatewayError('invalid_params', `embeddings.provider: unknown provider '${embeddings.provider}'`, { param: 'embeddings.provider' });
  }
  const ref: ModelRef = { provider: embeddings.provider, modelId: embeddings.model };
  if (providerConfig.type === 'anthropic') {
    throw new GatewayError(
      'invalid_params',
      `embeddings.provider: '${embeddings.provider}' is a ${providerConfig.type} provider, which has no embeddings endpoint`,
      { param: 'embeddings.provider' },
    );
  }
  // Its own keep-alive pool, built once; idle sockets do not hold the process open.
  const adapter = providerAdapter(providerConfig);
  const embed = adapter.embed?.bind(adapter);
  if (embed === undefined) throw new GatewayError('invalid_params', `embeddings.provider: '${embeddings.provider}' cannot embed`, { param: 'embeddings.provider' });

  return {
    model: embeddings.model,
    async embed(texts, signal, options = {}) {
      if (texts.length === 0) return { vectors: [], model: embeddings.model };
      signal.throwIfAborted();
      const { dimensions } = options;
      let result: EmbeddingResult;
      try {
        result = await embed({ modelId: embeddings.model, texts, signal, ...(dimensions === undefined ? {} : { dimensions }) });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const kind = classifyProviderError(error);
        log.warn({ model: formatModelRef(ref), errorKind: kind, statusCode: statusCodeOf(error) }, 'embedding call failed');
        const failure = upstreamFailureOf(ref, kind, error, [providerConfig.apiKey]);
        throw new GatewayError('upstream_failed', `Embedding call to ${formatModelRef(ref)} failed: ${describeFailure(failure)}`, {
          errorKind: kind,
          ...(failure.statusCode === undefined ? {} : { statusCode: failure.statusCode }),
          ...(failure.message === undefined ? {} : { upstreamMessage: failure.message }),
        }, { cause: error });
      }
      // A server that ignores `dimensions` answers its full length; passing that on would drop the caller's ask silently.
      const wrong = dimensions === undefined ? undefined : result.vectors.find((vector) => vector.length !== dimensions);
      if (wrong !== undefined) {
        throw new GatewayError('upstream_failed', `Embedding provider '${ref.provider}' answered ${wrong.length} dimensions, not the ${dimensions} asked for in 'dimensions'`, { param: 'dimensions' });
      }
      return result;
    },
  };
}
