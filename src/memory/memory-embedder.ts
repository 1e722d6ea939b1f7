// The embedder memory uses: the configured `embeddings:` provider behind the persistent cache, else the built-in hashing embedder.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { EmbedOptions, Embedder } from '../providers/index.js';
import type { EmbeddingVector, MemoryPort } from '../store/index.js';

/** Whose budgets a memory embedding counts against: the turn's (or caller's) token, tenant and agent. */
export type EmbedPayer = NonNullable<EmbedOptions['payer']>;

export interface MemoryEmbedder {
  /** The model vectors are keyed by; entries embedded by another model are never compared with these. */
  readonly model: string;
  /** What memory.stats reports: `<provider>/<model>` for the configured one, `builtin/<model>` for the hashing embedder. */
  readonly label: string;
  /**
   * One vector per text, in order; a text with no searchable content gets an all-zero vector. `payer`: whose budgets
   * the configured provider's call counts against (cache hits and the built-in embedder call no model); absent: the
   * gateway's own (background re-embedding).
   */
  embed(texts: readonly string[], signal: AbortSignal, payer?: EmbedPayer): Promise<EmbeddingVector[]>;
}

export interface MemoryEmbedderDeps {
  /** The configured embedder (`embeddings:`), when there is one. */
  configured?: { embedder: Embedder; provider: string } | undefined;
  /** The built-in deterministic embedder used without `embeddings:`. */
  builtin: Embedder;
  cache: Pick<MemoryPort, 'cachedEmbedding' | 'cacheEmbedding'>;
  log: Logger;
}

export const contentHash = (text: string): string => createHash('sha256').update(text).digest('hex');

const toVector = (model: string, values: readonly number[]): EmbeddingVector => ({
  model,
  values: Float32Array.from(values),
});

/**
 * The cache spares model calls: a configured provider's vectors are looked up by model and the text's sha256 first,
 * and misses are stored after the answer (not awaited, so a search never waits on a cache write). The hashing
 * embedder is computed in microseconds, less than a cache lookup costs, so its vectors are never cached.
 */
export function createMemoryEmbedder({ configured, builtin, cache, log }: MemoryEmbedderDeps): MemoryEmbedder {
  if (configured === undefined) {
    return {
      model: builtin.model,
      label: `builtin/${builtin.model}`,
      async embed(texts, signal) {
        const { vectors } = await builtin.embed(texts, signal);
        return vectors.map((values) => toVector(builtin.model, values));
      },
    };
  }
  const { embedder, provider } = configured;
  const { model } = embedder;
  return {
    model,
    label: `${provider}/${model}`,
    async embed(texts, signal, payer) {
      const hashes = texts.map(contentHash);
      const found = await Promise.all(hashes.map((hash) => cache.cachedEmbedding(model, hash)));
      const missing = texts.flatMap((text, index) => (found[index] === undefined ? [{ text, index }] : []));
      if (missing.length > 0) {
        const { vectors } = await embedder.embed(
          missing.map(({ text }) => text),
          signal,
          payer === undefined ? undefined : { payer },
        );
        missing.forEach(({ index }, position) => {
          const values = Float32Array.from(vectors[position] ?? []);
          found[index] = values;
          const hash = hashes[index] ?? contentHash(texts[index] ?? '');
          cache
            .cacheEmbedding(model, hash, values)
            .catch((error: unknown) => log.warn({ err: error, model }, 'embedding cache write failed'));
        });
      }
      return found.map((values) => ({ model, values: values ?? new Float32Array() }));
    },
  };
}

/** Whether a vector has any non-zero component (a text without words hashes to all zeros; cosine is undefined there). */
export function isZeroVector(values: Float32Array): boolean {
  for (const value of values) if (value !== 0) return false;
  return true;
}
