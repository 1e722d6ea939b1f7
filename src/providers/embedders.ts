// The configured embedder: `embeddings: {provider, model}` through the provider's embeddings endpoint (AI SDK embedMany).
import { embedMany } from 'ai';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/index.js';
import { GatewayError } from '../errors.js';
import { createCallSignal } from './call-signal.js';
import { classifyProviderError, statusCodeOf } from './error-kind.js';
import { createModelFactory, type ProvidersConfig } from './language-models.js';
import { formatModelRef, type Embedder, type ModelRef } from './types.js';

export interface EmbedderDeps {
  embeddings: GatewayConfig['embeddings'];
  providers: ProvidersConfig;
  log: Logger;
}

function reportedModel(responses: readonly ({ body?: unknown } | undefined)[] | undefined, fallback: string): string {
  const body = responses?.[0]?.body;
  if (typeof body === 'object' && body !== null && 'model' in body && typeof body.model === 'string' && body.model.length > 0) {
    return body.model;
  }
  return fallback;
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
  const model = createModelFactory(providers).embeddingModel(ref);
  if (model === undefined) {
    throw new GatewayError(
      'invalid_params',
      `embeddings.provider: '${embeddings.provider}' is a ${providerConfig.type} provider, which has no embeddings endpoint`,
      { param: 'embeddings.provider' },
    );
  }
  const timeoutMs = providerConfig.timeoutMs;

  return {
    model: embeddings.model,
    async embed(texts, signal) {
      if (texts.length === 0) return { vectors: [], model: embeddings.model };
      signal.throwIfAborted();
      const call = createCallSignal(signal, timeoutMs);
      try {
        const result = await embedMany({ model, values: [...texts], maxRetries: 0, abortSignal: call.signal });
        return { vectors: result.embeddings, model: reportedModel(result.responses, embeddings.model) };
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const kind = call.isTimedOut() ? 'timeout' : classifyProviderError(error);
        log.warn({ model: formatModelRef(ref), errorKind: kind, statusCode: statusCodeOf(error) }, 'embedding call failed');
        throw new GatewayError('upstream_failed', `Embedding call to ${formatModelRef(ref)} failed: ${kind}`, { errorKind: kind }, { cause: error });
      } finally {
        call.dispose();
      }
    },
  };
}
