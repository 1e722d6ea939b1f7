// The providers: config read for the wire: default base URLs, key presence, and one wire adapter per provider.
import type { GatewayConfig, ProviderConfig } from '../config/index.js';
import { createWireAdapter, type WireAdapter } from './wire/index.js';

export type ProvidersConfig = GatewayConfig['providers'];
export type ProviderType = ProviderConfig['type'];

/**
 * Where each provider type is reached when `baseUrl` is not set. openai-compatible defaults to a local
 * Ollama, the most common keyless server (DESIGN.md §2 uses it in the sample config).
 */
export const DEFAULT_BASE_URL: Record<ProviderType, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  google: 'https://generativelanguage.googleapis.com/v1beta',
  'openai-compatible': 'http://127.0.0.1:11434/v1',
};

export function baseUrlOf(config: ProviderConfig): string {
  return (config.baseUrl ?? DEFAULT_BASE_URL[config.type]).replace(/\/+$/, '');
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
export function providerAdapter(config: ProviderConfig): WireAdapter {
  return createWireAdapter(config.type, {
    baseUrl: baseUrlOf(config),
    apiKey: config.apiKey,
    timeoutMs: config.timeoutMs,
  });
}

/** One adapter per configured provider, built once per providers: config; close() closes every pool. */
export interface ProviderAdapters {
  get(provider: string): WireAdapter | undefined;
  /** In-flight calls finish first (undici's graceful close). */
  close(): Promise<void>;
}

export function createProviderAdapters(providers: ProvidersConfig): ProviderAdapters {
  const adapters = new Map<string, WireAdapter>();
  for (const [name, config] of Object.entries(providers)) adapters.set(name, providerAdapter(config));
  return {
    get: (provider) => adapters.get(provider),
    close: async () => {
      await Promise.all([...adapters.values()].map((adapter) => adapter.close()));
    },
  };
}
