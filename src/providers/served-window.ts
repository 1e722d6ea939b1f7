// Reads the context window a provider really serves, where its wire protocol exposes it, for the boot posture row.
import type { ProviderConfig } from '../config/index.js';
import type { ModelCatalog } from './catalog.js';
import { baseUrlOf, isApiKeyConfigured, type ProvidersConfig } from './provider-config.js';

/** Each discovery request gets this long; discovery runs after listen and never delays startup. */
export const SERVED_WINDOW_TIMEOUT_MS = 5000;
/** A model list larger than this is not read (OpenRouter's full list is about 1 MB). */
export const MODEL_LIST_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Fields of an OpenAI-style GET /models entry that carry the served window: vLLM `max_model_len`, OpenRouter and
 * others `context_length`, LM Studio `max_context_length`, Groq `context_window`. First positive integer wins.
 */
const MODEL_LIST_WINDOW_FIELDS = ['max_model_len', 'context_length', 'max_context_length', 'context_window'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const positiveInt = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined);

/** The JSON body of a 2xx response no larger than `maxBytes`, else undefined. */
async function readJson(response: Response, maxBytes: number): Promise<unknown> {
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** One catalog model at boot: the window the config promises and the one the server says it serves. */
export interface ServedWindowEntry {
  provider: string;
  model: string;
  configuredWindowTokens: number;
  servedWindowTokens: number | 'unknown';
}

export interface ServedWindowDeps {
  signal: AbortSignal;
  fetch?: typeof fetch;
}

async function getJson(url: string, init: RequestInit, { signal, fetch: fetchFn = fetch }: ServedWindowDeps): Promise<unknown> {
  try {
    const response = await fetchFn(url, { ...init, signal: AbortSignal.any([signal, AbortSignal.timeout(SERVED_WINDOW_TIMEOUT_MS)]) });
    return await readJson(response, MODEL_LIST_MAX_BYTES);
  } catch {
    // Unreachable, slow or refusing: the served window is simply unknown.
    return undefined;
  }
}

function fromModelList(list: unknown, modelIds: readonly string[]): Map<string, number> {
  const found = new Map<string, number>();
  const entries = isRecord(list) && Array.isArray(list.data) ? list.data : [];
  for (const entry of entries) {
    if (!isRecord(entry) || typeof entry.id !== 'string' || !modelIds.includes(entry.id)) continue;
    const window = MODEL_LIST_WINDOW_FIELDS.map((field) => positiveInt(entry[field])).find((value) => value !== undefined);
    if (window !== undefined) found.set(entry.id, window);
  }
  return found;
}

/**
 * Ollama serves `num_ctx` tokens, set in the model's parameters; without it the server's own default applies,
 * which /api/show does not tell, so the window stays unknown (the model's trained length is not what it serves).
 */
async function fromOllamaShow(origin: string, modelId: string, headers: Record<string, string>, deps: ServedWindowDeps): Promise<number | undefined> {
  const init = { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ model: modelId }) };
  const shown = await getJson(`${origin}/api/show`, init, deps);
  const parameters = isRecord(shown) && typeof shown.parameters === 'string' ? shown.parameters : '';
  const match = /^num_ctx\s+(\d+)\s*$/m.exec(parameters);
  return match?.[1] === undefined ? undefined : positiveInt(Number(match[1]));
}

/**
 * The served window of each of `modelIds` that the provider reports: OpenAI-style GET /models fields, then
 * Ollama's POST /api/show for an openai-compatible server reached at `<origin>/v1`, or Gemini's model
 * `inputTokenLimit`. Models it cannot read are left out. Never throws.
 */
export async function discoverServedWindows(config: ProviderConfig, modelIds: readonly string[], deps: ServedWindowDeps): Promise<Map<string, number>> {
  const baseUrl = baseUrlOf(config);
  const apiKey = config.apiKey ?? '';
  if (config.type === 'google') {
    const found = new Map<string, number>();
    for (const modelId of modelIds) {
      const model = await getJson(`${baseUrl}/models/${encodeURIComponent(modelId)}`, { headers: { 'x-goog-api-key': apiKey } }, deps);
      const window = isRecord(model) ? positiveInt(model.inputTokenLimit) : undefined;
      if (window !== undefined) found.set(modelId, window);
    }
    return found;
  }
  // Neither Anthropic's model list nor OpenAI's own says how large a window is served; asking would only send
  // the key out at every boot. An `openai` provider pointed elsewhere (a self-hosted server) is asked.
  if (config.type === 'anthropic' || (config.type === 'openai' && config.baseUrl === undefined)) return new Map();
  const headers: Record<string, string> = isApiKeyConfigured(config) ? { authorization: `Bearer ${apiKey}` } : {};
  const found = fromModelList(await getJson(`${baseUrl}/models`, { headers }, deps), modelIds);
  if (config.type === 'openai-compatible' && baseUrl.endsWith('/v1')) {
    const origin = baseUrl.slice(0, -'/v1'.length);
    for (const modelId of modelIds) {
      if (found.has(modelId)) continue;
      const window = await fromOllamaShow(origin, modelId, headers, deps);
      if (window !== undefined) found.set(modelId, window);
    }
  }
  return found;
}

/** Every catalog model's configured window beside the served one, the providers asked in parallel. Never throws. */
export async function servedWindowReport(providers: ProvidersConfig, catalog: ModelCatalog, signal: AbortSignal): Promise<ServedWindowEntry[]> {
  const perProvider = await Promise.all(Object.entries(providers).map(async ([provider, config]) => {
    const entries = catalog.forProvider(provider);
    const served = await discoverServedWindows(config, entries.map((entry) => entry.modelId), { signal });
    return entries.map((entry): ServedWindowEntry => ({
      provider,
      model: entry.modelId,
      configuredWindowTokens: entry.contextWindow,
      servedWindowTokens: served.get(entry.modelId) ?? 'unknown',
    }));
  }));
  return perProvider.flat();
}
