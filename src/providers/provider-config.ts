// The providers: config read for the wire: base URLs (the type's default from the provider table), key presence,
// and one wire adapter per provider.
import type { GatewayConfig, ProviderConfig } from '../config/index.js';
import { PROVIDER_TABLE, type ProviderType } from '../provider-table.js';
import { createWireAdapter, type WireAdapter } from './wire/index.js';

export type ProvidersConfig = GatewayConfig['providers'];

/** The configured `baseUrl`, else the type's default, without a trailing slash. */
export function baseUrlOf(config: Pick<ProviderConfig, 'type' | 'baseUrl'>): string {
  return (config.baseUrl ?? PROVIDER_TABLE[config.type].defaultBaseUrl).replace(/\/+$/, '');
}

/**
 * The base URL as reports show it (the catalog's Model.baseUrl): without user info, query or fragment, where a
 * resolved `${secret:…}` may sit (config/reference-fields.ts allows references in URLs); never returned resolved.
 */
export function shownBaseUrlOf(config: ProviderConfig): string {
  const url = baseUrlOf(config);
  if (!URL.canParse(url)) return url;
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`.replace(/\/+$/, '');
}

export function isApiKeyConfigured(config: ProviderConfig): boolean {
  return config.apiKey !== undefined && config.apiKey.length > 0;
}

/** The provider's adapter: its own keep-alive pool to the provider origin. The key comes from config only (which substitutes ${ENV}). */
export function providerAdapter(config: ProviderConfig, traceparent?: () => string | undefined): WireAdapter {
  return createWireAdapter(config.type, {
    baseUrl: baseUrlOf(config),
    apiKey: config.apiKey,
    timeoutMs: config.timeoutMs,
    traceparent,
  });
}

/** One adapter per configured provider, built once per providers: config; close() closes every pool. */
export interface ProviderAdapters {
  get(provider: string): WireAdapter | undefined;
  /** In-flight calls finish first (undici's graceful close). */
  close(): Promise<void>;
}

export function createProviderAdapters(
  providers: ProvidersConfig,
  traceparent?: () => string | undefined,
): ProviderAdapters {
  const adapters = new Map<string, WireAdapter>();
  for (const [name, config] of Object.entries(providers)) adapters.set(name, providerAdapter(config, traceparent));
  return {
    get: (provider) => adapters.get(provider),
    close: async () => {
      await Promise.all([...adapters.values()].map((adapter) => adapter.close()));
    },
  };
}

/** A configured provider as models.* and the dashboard describe it (the key never, only whether one is set). */
export interface ProviderInfo {
  name: string;
  type: ProviderType;
  baseUrl: string;
  timeoutMs: number;
  isApiKeyConfigured: boolean;
}
