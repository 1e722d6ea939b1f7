// The model catalog: the spec's Model entries built from the providers: config, plus each model's validation mark.
import { shownBaseUrlOf, type ProvidersConfig } from './provider-config.js';
import type { ModelCatalogEntry, ModelRef } from './types.js';

export interface ModelCatalog {
  /** Every entry, in config order (providers, then their models). */
  entries(): ModelCatalogEntry[];
  forProvider(provider: string): ModelCatalogEntry[];
  entry(ref: ModelRef): ModelCatalogEntry | undefined;
  /** `<provider>/<modelId>` or a bare model id (first provider listing it) to a listed model. */
  resolve(model: string): ModelRef | undefined;
  providers(): string[];
  /** Marks a model validated (after a successful call or models.test); unlisted models are ignored. */
  markValidated(ref: ModelRef, at: number): void;
}

const keyOf = (ref: ModelRef): string => `${ref.provider}\u0000${ref.modelId}`;

export function createModelCatalog(providers: ProvidersConfig): ModelCatalog {
  const byKey = new Map<string, ModelCatalogEntry>();
  const validatedAtMs = new Map<string, number>();
  for (const [provider, config] of Object.entries(providers)) {
    for (const model of config.models) {
      byKey.set(keyOf({ provider, modelId: model.id }), {
        provider,
        modelId: model.id,
        displayName: model.displayName ?? model.id,
        contextWindow: model.contextWindow,
        maxTokens: model.maxTokens,
        baseUrl: shownBaseUrlOf(config),
        input: [...model.input],
        reasoning: model.reasoning,
        cost: { ...model.cost },
        validated: false,
        validatedAt: null,
      });
    }
  }
  const copy = (entry: ModelCatalogEntry): ModelCatalogEntry => ({
    ...entry,
    input: [...entry.input],
    cost: { ...entry.cost },
  });
  const all = (): ModelCatalogEntry[] => [...byKey.values()];

  return {
    entries: () => all().map(copy),
    forProvider: (provider) =>
      all()
        .filter((entry) => entry.provider === provider)
        .map(copy),
    entry(ref) {
      const found = byKey.get(keyOf(ref));
      return found === undefined ? undefined : copy(found);
    },
    resolve(model) {
      const slash = model.indexOf('/');
      if (slash > 0) {
        // Model ids may contain '/' themselves (vLLM serves `org/name`), so only a configured provider prefix splits.
        const ref = { provider: model.slice(0, slash), modelId: model.slice(slash + 1) };
        if (byKey.has(keyOf(ref))) return ref;
      }
      const bare = all().find((entry) => entry.modelId === model);
      return bare === undefined ? undefined : { provider: bare.provider, modelId: bare.modelId };
    },
    providers: () => Object.keys(providers),
    markValidated(ref, at) {
      const key = keyOf(ref);
      const found = byKey.get(key);
      // Called after every successful model call: the time is formatted at most once a second per model.
      if (found === undefined || at - (validatedAtMs.get(key) ?? -Infinity) < 1000) return;
      validatedAtMs.set(key, at);
      found.validated = true;
      found.validatedAt = new Date(at).toISOString();
    },
  };
}
