// The model catalog: the spec's Model entries built from the providers: config, plus each model's validation mark.
import { shownBaseUrlOf, type ProvidersConfig } from './provider-config.js';
import type { ModelCatalogEntry, ModelRef } from './types.js';

export interface ModelCatalog {
  /** Every entry, in config order (providers, then their models). */
  entries(): ModelCatalogEntry[];
  forProvider(provider: string): ModelCatalogEntry[];
  entry(ref: ModelRef): ModelCatalogEntry | undefined;
  /** The entry itself, not a copy, for the router's own reads on every call; never to be changed or handed out. */
  peek(ref: ModelRef): Readonly<ModelCatalogEntry> | undefined;
  /** `<provider>/<modelId>` or a bare model id (first provider listing it) to a listed model. */
  resolve(model: string): ModelRef | undefined;
  providers(): string[];
  /** Marks a model validated (after a successful call or models.test); unlisted models are ignored. */
  markValidated(ref: ModelRef, at: number): void;
}

interface CatalogRecord {
  entry: ModelCatalogEntry;
  /** When the mark was last set; -Infinity before the first. */
  validatedAtMs: number;
}

export function createModelCatalog(providers: ProvidersConfig): ModelCatalog {
  // By provider, then model id: a call's lookup hashes the config's own strings (their hashes are kept), where a joined
  // key would be a new string to hash on every call.
  const byProvider = new Map<string, Map<string, CatalogRecord>>();
  const records: CatalogRecord[] = [];
  for (const [provider, config] of Object.entries(providers)) {
    const models = new Map<string, CatalogRecord>();
    byProvider.set(provider, models);
    for (const model of config.models) {
      const record: CatalogRecord = {
        entry: {
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
          tier: model.tier,
        },
        validatedAtMs: Number.NEGATIVE_INFINITY,
      };
      // A model listed twice under one provider keeps its first place in the order and its last definition, as before.
      const listed = models.get(model.id);
      if (listed === undefined) records.push(record);
      else records[records.indexOf(listed)] = record;
      models.set(model.id, record);
    }
  }
  const find = (ref: ModelRef): CatalogRecord | undefined => byProvider.get(ref.provider)?.get(ref.modelId);
  const copy = (entry: ModelCatalogEntry): ModelCatalogEntry => ({
    ...entry,
    input: [...entry.input],
    cost: { ...entry.cost },
  });
  const all = (): ModelCatalogEntry[] => records.map((record) => record.entry);

  return {
    entries: () => all().map(copy),
    forProvider: (provider) =>
      all()
        .filter((entry) => entry.provider === provider)
        .map(copy),
    entry(ref) {
      const found = find(ref);
      return found === undefined ? undefined : copy(found.entry);
    },
    peek: (ref) => find(ref)?.entry,
    resolve(model) {
      const slash = model.indexOf('/');
      if (slash > 0) {
        // Model ids may contain '/' themselves (vLLM serves `org/name`), so only a configured provider prefix splits.
        const ref = { provider: model.slice(0, slash), modelId: model.slice(slash + 1) };
        if (find(ref) !== undefined) return ref;
      }
      const bare = all().find((entry) => entry.modelId === model);
      return bare === undefined ? undefined : { provider: bare.provider, modelId: bare.modelId };
    },
    providers: () => Object.keys(providers),
    markValidated(ref, at) {
      const found = find(ref);
      // Called after every successful model call: the time is formatted at most once a second per model.
      if (found === undefined || at - found.validatedAtMs < 1000) return;
      found.validatedAtMs = at;
      found.entry.validated = true;
      found.entry.validatedAt = new Date(at).toISOString();
    },
  };
}
