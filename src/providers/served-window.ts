// Reads the context window a provider really serves, where its wire protocol exposes it, for the boot posture row (over the provider's pool).
import type { ProviderConfig } from '../config/index.js';
import type { ModelCatalog } from './catalog.js';
import { PROVIDER_LIMITS } from './limits.js';
import { providerAdapter, type ProviderAdapters, type ProvidersConfig } from './provider-config.js';
import { PROVIDER_TABLE, type ServedWindowSource } from '../provider-table.js';
import { readText, type WireHttp } from './wire/http.js';

export const SERVED_WINDOW_TIMEOUT_MS = PROVIDER_LIMITS.servedWindowTimeoutMs;
export const MODEL_LIST_MAX_BYTES = PROVIDER_LIMITS.modelListMaxBytes;

/**
 * Fields of an OpenAI-style GET /models entry that carry the served window: vLLM `max_model_len`, OpenRouter and
 * others `context_length`, LM Studio `max_context_length`, Groq `context_window`. First positive integer wins.
 */
const MODEL_LIST_WINDOW_FIELDS = ['max_model_len', 'context_length', 'max_context_length', 'context_window'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const positiveInt = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;

/** One catalog model at boot: the window the config promises and the one the server says it serves. */
export interface ServedWindowEntry {
  provider: string;
  model: string;
  configuredWindowTokens: number;
  servedWindowTokens: number | 'unknown';
}

export interface ServedWindowDeps {
  signal: AbortSignal;
  /** The provider's pool (its adapter's); without one, a pool is opened for the discovery and closed after it. */
  http?: WireHttp;
}

const ignore = (): void => undefined;

/** The JSON body of a 2xx answer no larger than MODEL_LIST_MAX_BYTES, else undefined; never throws. */
async function requestJson(
  http: WireHttp,
  path: string,
  body: string | undefined,
  signal: AbortSignal,
): Promise<unknown> {
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(SERVED_WINDOW_TIMEOUT_MS)]);
  try {
    const response = body === undefined ? await http.get(path, bounded) : await http.post(path, body, bounded);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      // Closing an unread undici body emits an 'error' (aborted) that nothing else listens for.
      response.body.on('error', ignore).destroy();
      return undefined;
    }
    return JSON.parse(await readText(response.body, MODEL_LIST_MAX_BYTES));
  } catch {
    // Unreachable, slow, refusing, too large or not JSON: the served window is simply unknown.
    return undefined;
  }
}

function fromModelList(list: unknown, modelIds: readonly string[]): Map<string, number> {
  const found = new Map<string, number>();
  const entries = isRecord(list) && Array.isArray(list.data) ? list.data : [];
  for (const entry of entries) {
    if (!isRecord(entry) || typeof entry.id !== 'string' || !modelIds.includes(entry.id)) continue;
    const window = MODEL_LIST_WINDOW_FIELDS.map((field) => positiveInt(entry[field])).find(
      (value) => value !== undefined,
    );
    if (window !== undefined) found.set(entry.id, window);
  }
  return found;
}

/**
 * Ollama serves `num_ctx` tokens, set in the model's parameters; without it the server's own default applies,
 * which /api/show does not tell, so the window stays unknown (the model's trained length is not what it serves).
 */
async function fromOllamaShow(
  http: WireHttp,
  showPath: string,
  modelId: string,
  signal: AbortSignal,
): Promise<number | undefined> {
  const shown = await requestJson(http, showPath, JSON.stringify({ model: modelId }), signal);
  const parameters = isRecord(shown) && typeof shown.parameters === 'string' ? shown.parameters : '';
  const match = /^num_ctx\s+(\d+)\s*$/m.exec(parameters);
  return match?.[1] === undefined ? undefined : positiveInt(Number(match[1]));
}

/** Gemini's model resource names its `inputTokenLimit`, one model at a time. */
async function fromModelInfo(
  http: WireHttp,
  modelIds: readonly string[],
  signal: AbortSignal,
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const modelId of modelIds) {
    const model = await requestJson(http, `${http.basePath}/models/${encodeURIComponent(modelId)}`, undefined, signal);
    const window = isRecord(model) ? positiveInt(model.inputTokenLimit) : undefined;
    if (window !== undefined) found.set(modelId, window);
  }
  return found;
}

const listed = async (http: WireHttp, modelIds: readonly string[], signal: AbortSignal) =>
  fromModelList(await requestJson(http, `${http.basePath}/models`, undefined, signal), modelIds);

/** The model list, then Ollama's /api/show for the models it left out, when the server is reached at `<origin>/v1`. */
async function fromModelListOrOllamaShow(
  http: WireHttp,
  modelIds: readonly string[],
  signal: AbortSignal,
): Promise<Map<string, number>> {
  const found = await listed(http, modelIds, signal);
  if (!http.basePath.endsWith('/v1')) return found;
  const showPath = `${http.basePath.slice(0, -'/v1'.length)}/api/show`;
  for (const modelId of modelIds) {
    if (found.has(modelId)) continue;
    const window = await fromOllamaShow(http, showPath, modelId, signal);
    if (window !== undefined) found.set(modelId, window);
  }
  return found;
}

const SOURCES: {
  readonly [S in ServedWindowSource]: (
    http: WireHttp,
    modelIds: readonly string[],
    signal: AbortSignal,
  ) => Promise<Map<string, number>>;
} = {
  'model-list': listed,
  'model-list-or-ollama-show': fromModelListOrOllamaShow,
  'model-info': fromModelInfo,
};

/**
 * The served window of each of `modelIds` that the provider reports, read where its type's table row says
 * (servedWindow); a type whose server never says is not asked. Models it cannot read are left out. Never throws.
 */
export async function discoverServedWindows(
  config: ProviderConfig,
  modelIds: readonly string[],
  { signal, http }: ServedWindowDeps,
): Promise<Map<string, number>> {
  const servedWindow = PROVIDER_TABLE[config.type].servedWindow;
  if (servedWindow === undefined || (!servedWindow.atDefaultBaseUrl && config.baseUrl === undefined)) return new Map();
  const discover = SOURCES[servedWindow.source];
  if (http !== undefined) return discover(http, modelIds, signal);
  const adapter = providerAdapter(config);
  try {
    return await discover(adapter.http, modelIds, signal);
  } finally {
    await adapter.close();
  }
}

/** Every catalog model's configured window beside the served one, the providers asked in parallel. Never throws. */
export async function servedWindowReport(
  providers: ProvidersConfig,
  catalog: ModelCatalog,
  adapters: ProviderAdapters,
  signal: AbortSignal,
): Promise<ServedWindowEntry[]> {
  const perProvider = await Promise.all(
    Object.entries(providers).map(async ([provider, config]) => {
      const entries = catalog.forProvider(provider);
      const http = adapters.get(provider)?.http;
      const served = await discoverServedWindows(
        config,
        entries.map((entry) => entry.modelId),
        { signal, ...(http === undefined ? {} : { http }) },
      );
      return entries.map((entry): ServedWindowEntry => ({
        provider,
        model: entry.modelId,
        configuredWindowTokens: entry.contextWindow,
        servedWindowTokens: served.get(entry.modelId) ?? 'unknown',
      }));
    }),
  );
  return perProvider.flat();
}
