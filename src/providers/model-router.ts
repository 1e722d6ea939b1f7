// The model router: streams a call to the primary model, falls back in order, and keeps breakers and the catalog.
import type { EventBus } from '../events/index.js';
import type { Logger } from 'pino';
import { GatewayError } from '../errors.js';
import { testModel } from './model-test.js';
import { createModelCatalog, type ModelCatalog } from './catalog.js';
import {
  createAuthCooldowns,
  createProviderBreakers,
  type BreakerSnapshot,
  type CircuitBreakerOptions,
} from './circuit-breaker.js';
import {
  classifyProviderError,
  countsTowardBreaker,
  isFallbackEligible,
  statusCodeOf,
  type ProviderErrorKind,
} from './error-kind.js';
import {
  baseUrlOf,
  createProviderAdapters,
  isApiKeyConfigured,
  type ProviderAdapters,
  type ProviderInfo,
  type ProvidersConfig,
} from './provider-config.js';
import { PROVIDER_TABLE } from '../provider-table.js';
import { streamModelCall, wireOptions } from './model-call.js';
import { outputLimits } from './output-limit.js';
import {
  noCandidate,
  settingsRefused,
  upstreamFailed,
  upstreamFailureOf,
  type SkipReason,
  type UpstreamFailure,
} from './router-errors.js';
import { servedWindowReport, type ServedWindowEntry } from './served-window.js';
import {
  formatModelRef,
  type CallSettings,
  type ModelCallObservation,
  type ModelRef,
  type ModelRouter,
  type ModelStreamEvent,
  type RoutedCallRequest,
} from './types.js';
import { costUsd, createCacheStatsTracker, type CacheStats } from './usage.js';

export interface ModelRouterDeps {
  config: ProvidersConfig;
  events: EventBus;
  log: Logger;
  now?: () => number;
  breaker?: CircuitBreakerOptions;
  /** How long a provider is skipped after a 401/403, in ms. Default PROVIDER_LIMITS.authCooldownMs. */
  authCooldownMs?: number;
  /** The traceparent a model request sends (src/tracing); absent while tracing is off. */
  traceparent?: (() => string | undefined) | undefined;
  /** Told of each model call that ended, not one the caller aborted (the metrics). */
  onModelCall?: (call: ModelCallObservation) => void;
}

/** The seam's ModelRouter plus the diagnostics the gateway's admin methods read. */
export interface GatewayModelRouter extends ModelRouter {
  /** Undefined for a provider that is not configured. */
  breakerState(provider: string): BreakerSnapshot | undefined;
  cacheStats(agentId?: string): CacheStats;
  providerInfo(provider: string): ProviderInfo | undefined;
  /**
   * Every catalog model with its configured context window and the window its server reports serving, read
   * from each provider in parallel; `unknown` where the protocol does not say or the server did not answer.
   */
  servedWindows(signal: AbortSignal): Promise<ServedWindowEntry[]>;
  /**
   * Swaps in a new providers: config (after config.patch): calls already running finish on the old one.
   * Validation marks of models still listed, breakers and auth cooldowns carry over.
   */
  reload(config: ProvidersConfig): void;
  /** Closes every provider's connection pool once in-flight calls finish. */
  close(): Promise<void>;
}

export const NO_PROVIDER_MESSAGE = 'No LLM provider configured: add one under `providers:` in config.yaml (see README)';

interface RouterState {
  config: ProvidersConfig;
  catalog: ModelCatalog;
  adapters: ProviderAdapters;
  hasProviders: boolean;
}

export function createModelRouter({
  config: initialConfig,
  events,
  log,
  now = Date.now,
  breaker,
  authCooldownMs,
  traceparent,
  onModelCall,
}: ModelRouterDeps): GatewayModelRouter {
  const breakers = createProviderBreakers({ events, now, ...breaker });
  const authCooldowns = createAuthCooldowns({
    events,
    now,
    ...(authCooldownMs === undefined ? {} : { cooldownMs: authCooldownMs }),
  });
  const cacheStats = createCacheStatsTracker();

  function load(config: ProvidersConfig, previous?: ModelCatalog): RouterState {
    const catalog = createModelCatalog(config);
    for (const entry of previous?.entries() ?? []) {
      if (entry.validatedAt !== null) catalog.markValidated(entry, Date.parse(entry.validatedAt));
    }
    events.emit('model:catalog_loaded', { providers: catalog.providers().length, models: catalog.entries().length });
    const adapters = createProviderAdapters(config, traceparent);
    return { config, catalog, adapters, hasProviders: Object.keys(config).length > 0 };
  }
  let state = load(initialConfig);

  /** The failure of `ref`'s call, its provider's configured key masked should the upstream have echoed it. */
  const failureOf = (ref: ModelRef, kind: ProviderErrorKind, error: unknown): UpstreamFailure =>
    upstreamFailureOf(ref, kind, error, [state.config[ref.provider]?.apiKey]);
  const failed = (failures: readonly UpstreamFailure[], cause: unknown, isAfterOutput = false) => {
    const last = failures.at(-1);
    return upstreamFailed({
      failures,
      cause,
      isAfterOutput,
      timeoutMs: last === undefined ? undefined : state.config[last.provider]?.timeoutMs,
    });
  };
  const nothingToTry = (skipped: ReadonlyMap<string, SkipReason>) =>
    noCandidate(skipped, (provider) => breakers.snapshot(provider).retryAt, now());

  function unsupported(ref: ModelRef, settings: CallSettings): string[] {
    const adapter = state.adapters.get(ref.provider);
    // A request that sets nothing asks nothing a provider could refuse (most turns).
    if (adapter === undefined || Object.keys(settings).length === 0) return [];
    return adapter.unsupported(wireOptions(settings)).map((path) => path.replace(/^sampling\./, ''));
  }

  async function* stream(request: RoutedCallRequest): AsyncGenerator<ModelStreamEvent> {
    const { config, catalog, adapters, hasProviders } = state;
    if (!hasProviders) throw new GatewayError('unavailable', NO_PROVIDER_MESSAGE, { reason: 'no_provider' });
    const settings = request.settings ?? {};
    const seen = new Set<string>();
    const candidates: ModelRef[] = [];
    for (const ref of [request.primary, ...request.fallbacks]) {
      const key = formatModelRef(ref);
      if (seen.has(key)) continue;
      seen.add(key);
      const refused = unsupported(ref, settings);
      if (config[ref.provider] === undefined)
        log.warn({ model: key, agentId: request.agentId }, 'model names an unconfigured provider; skipped');
      else if (refused.length > 0)
        log.warn(
          { model: key, agentId: request.agentId, settings: refused },
          'model cannot honour the request settings; skipped',
        );
      else candidates.push(ref);
    }
    if (candidates.length === 0) {
      const primaryRefused = unsupported(request.primary, settings);
      if (primaryRefused.length > 0) throw settingsRefused(request.primary.provider, primaryRefused);
      throw new GatewayError(
        'unavailable',
        `Provider '${request.primary.provider}' is not configured under \`providers:\` in config.yaml`,
        {
          reason: 'unknown_provider',
        },
      );
    }

    const skipped = new Map<string, SkipReason>();
    let attempts = 0;
    let previous: { ref: ModelRef; reason: string } | undefined;
    /** Each model tried that failed, in order: a failed chain names every one's cause. */
    const failures: UpstreamFailure[] = [];
    let lastError: unknown;

    for (const ref of candidates) {
      const providerConfig = config[ref.provider];
      const adapter = adapters.get(ref.provider);
      if (providerConfig === undefined || adapter === undefined) continue;
      const skipReason: SkipReason | undefined = authCooldowns.isCoolingDown(ref.provider)
        ? 'auth_cooldown'
        : breakers.tryAcquire(ref.provider)
          ? undefined
          : 'circuit_open';
      if (skipReason !== undefined) {
        skipped.set(ref.provider, skipReason);
        previous = { ref, reason: skipReason };
        continue;
      }
      if (previous !== undefined) {
        events.emit('model:fallback_attempt', {
          agentId: request.agentId,
          from: formatModelRef(previous.ref),
          to: formatModelRef(ref),
          errorKind: previous.reason,
        });
      }
      attempts += 1;
      const entry = catalog.peek(ref);
      const maxOutputTokens =
        settings.maxOutputTokens ??
        (PROVIDER_TABLE[providerConfig.type].requiresMaxTokens ? entry?.maxTokens : undefined);
      const startedAt = now();
      let firstOutputAt: number | undefined;
      const observe = (errorKind?: ProviderErrorKind) =>
        onModelCall?.({ ref, durationMs: now() - startedAt, firstOutputAt, startedAt, errorKind });
      let hasOutput = false;
      let isSettled = false;
      try {
        const calls = streamModelCall({
          adapter,
          modelId: ref.modelId,
          system: request.system,
          messages: request.messages,
          tools: request.tools,
          // A type whose server requires an output ceiling gets the catalog's maxTokens, the model's own ceiling.
          settings: maxOutputTokens === undefined ? settings : { ...settings, maxOutputTokens },
          // The ceiling we asked the server for, else the catalog's: past it (with a margin) the server is not
          // stopping by itself, and only cutting the call keeps the reply and our memory bounded.
          limits: outputLimits(settings.maxOutputTokens ?? entry?.maxTokens, providerConfig.maxResponseBytes),
          signal: request.signal,
          log,
        });
        for await (const event of calls) {
          if (event.type !== 'finish') {
            hasOutput = true;
            firstOutputAt ??= now();
            yield event;
            continue;
          }
          isSettled = true;
          breakers.recordSuccess(ref.provider);
          catalog.markValidated(ref, now());
          cacheStats.record(request.agentId, event.usage);
          observe();
          yield {
            type: 'finish',
            finishReason: event.finishReason,
            usage: event.usage,
            model: ref,
            costUsd: costUsd(event.usage, entry?.cost),
            latencyMs: now() - startedAt,
          };
          return;
        }
      } catch (error) {
        isSettled = true;
        if (request.signal.aborted) {
          breakers.release(ref.provider);
          throw error;
        }
        const kind = classifyProviderError(error);
        observe(kind);
        log.warn(
          { model: formatModelRef(ref), agentId: request.agentId, errorKind: kind, statusCode: statusCodeOf(error) },
          'model call failed',
        );
        if (kind === 'auth') {
          breakers.release(ref.provider);
          authCooldowns.start(ref.provider);
        } else if (countsTowardBreaker(kind)) {
          breakers.recordFailure(ref.provider);
        } else {
          breakers.release(ref.provider);
        }
        failures.push(failureOf(ref, kind, error));
        if (hasOutput) throw failed(failures, error, true);
        if (!isFallbackEligible(kind)) throw failed(failures, error);
        previous = { ref, reason: kind };
        lastError = error;
      } finally {
        // The consumer stopped reading mid-call: no verdict for the breaker, but free a half-open probe.
        if (!isSettled) breakers.release(ref.provider);
      }
    }

    if (failures.length === 0) throw nothingToTry(skipped);
    if (candidates.length > 1) events.emit('model:fallback_exhausted', { agentId: request.agentId, attempts });
    throw failed(failures, lastError);
  }

  return {
    stream,
    test: (ref, signal) => testModel(state, ref, signal, { now, log }),
    resolve: (model) => state.catalog.resolve(model),
    unsupported,
    catalog: () => state.catalog.entries(),
    entry: (ref) => state.catalog.entry(ref),
    providers: () => state.catalog.providers(),
    breakerState: (provider) => (state.config[provider] === undefined ? undefined : breakers.snapshot(provider)),
    cacheStats: (agentId) => cacheStats.stats(agentId),
    providerInfo(provider) {
      const providerConfig = state.config[provider];
      if (providerConfig === undefined) return undefined;
      return {
        name: provider,
        type: providerConfig.type,
        baseUrl: baseUrlOf(providerConfig),
        timeoutMs: providerConfig.timeoutMs,
        isApiKeyConfigured: isApiKeyConfigured(providerConfig),
      };
    },
    reload(config) {
      const previous = state;
      state = load(config, previous.catalog);
      // Calls already running keep their pools until they finish (a graceful close).
      void previous.adapters
        .close()
        .catch((error: unknown) => log.warn({ err: error }, 'closing the previous provider pools failed'));
    },
    close: () => state.adapters.close(),
    servedWindows: (signal) => servedWindowReport(state.config, state.catalog, state.adapters, signal),
  };
}
