// models.test: one tiny round trip to a configured model, marking it validated when it answers; never throws.
import type { Logger } from 'pino';
import type { ModelCatalog } from './catalog.js';
import { describeProviderError } from './error-kind.js';
import type { ProviderAdapters } from './provider-config.js';
import type { TranscriptMessage } from './transcript.js';
import { formatModelRef, type ModelRef } from './types.js';

const TEST_PROMPT: TranscriptMessage = { role: 'user', content: 'Reply with the single word: pong', timestamp: 0 };
const TEST_MAX_OUTPUT_TOKENS = 16;

export async function testModel(
  { catalog, adapters }: { catalog: ModelCatalog; adapters: ProviderAdapters },
  ref: ModelRef,
  signal: AbortSignal,
  { now, log }: { now: () => number; log: Logger },
): Promise<{ ok: boolean; latencyMs: number; provider: string; error?: string }> {
  const adapter = adapters.get(ref.provider);
  if (adapter === undefined) return { ok: false, latencyMs: 0, provider: ref.provider, error: 'unknown provider' };
  const startedAt = now();
  try {
    const calls = adapter.stream({
      modelId: ref.modelId,
      system: undefined,
      messages: [TEST_PROMPT],
      tools: [],
      sampling: { maxOutputTokens: TEST_MAX_OUTPUT_TOKENS },
      signal,
      stream: false,
    });
    for await (const event of calls) if (event.type === 'finish') break;
    catalog.markValidated(ref, now());
    return { ok: true, latencyMs: now() - startedAt, provider: ref.provider };
  } catch (error) {
    const description = describeProviderError(error);
    log.warn({ model: formatModelRef(ref), error: description }, 'model test failed');
    return { ok: false, latencyMs: now() - startedAt, provider: ref.provider, error: description };
  }
}
