// Builds AI SDK models from the providers: config, one SDK provider instance per configured provider.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { EmbeddingModel, LanguageModel } from 'ai';
import type { GatewayConfig, ProviderConfig } from '../config/index.js';
import { GatewayError } from '../errors.js';
import type { ModelRef } from './types.js';

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

export function isApiKeyConfigured(config: ProviderConfig): boolean {
  return config.apiKey !== undefined && config.apiKey.length > 0;
}

interface SdkProvider {
  languageModel(modelId: string): LanguageModel;
  embeddingModel(modelId: string): EmbeddingModel | undefined;
}

function sdkProvider(name: string, config: ProviderConfig): SdkProvider {
  const baseURL = baseUrlOf(config);
  // The key comes from config only (which substitutes ${ENV}); '' stops the SDKs from reading process.env
  // themselves, and the upstream then answers 401, which the router reports as an auth failure.
  const apiKey = config.apiKey ?? '';
  switch (config.type) {
    case 'openai': {
      const provider = createOpenAI({ baseURL, apiKey, name });
      // .chat(): the Chat Completions wire, which every OpenAI-style server speaks (not the Responses API).
      return { languageModel: (id) => provider.chat(id), embeddingModel: (id) => provider.embeddingModel(id) };
    }
    case 'anthropic': {
      const provider = createAnthropic({ baseURL, apiKey });
      return { languageModel: (id) => provider.languageModel(id), embeddingModel: () => undefined };
    }
    case 'google': {
      const provider = createGoogleGenerativeAI({ baseURL, apiKey });
      return { languageModel: (id) => provider.languageModel(id), embeddingModel: (id) => provider.embeddingModel(id) };
    }
    case 'openai-compatible': {
      const provider = createOpenAICompatible({
        name,
        baseURL,
        ...(isApiKeyConfigured(config) ? { apiKey } : {}),
        includeUsage: true,
      });
      return { languageModel: (id) => provider.chatModel(id), embeddingModel: (id) => provider.embeddingModel(id) };
    }
  }
}

export interface ModelFactory {
  languageModel(ref: ModelRef): LanguageModel;
  /** Undefined when the provider type has no embeddings endpoint (anthropic). */
  embeddingModel(ref: ModelRef): EmbeddingModel | undefined;
}

export function createModelFactory(providers: ProvidersConfig): ModelFactory {
  const instances = new Map<string, SdkProvider>();
  function instanceOf(provider: string): SdkProvider {
    let instance = instances.get(provider);
    if (instance === undefined) {
      const config = providers[provider];
      if (config === undefined) throw new GatewayError('not_found', `Unknown provider '${provider}'`, { reason: 'unknown_provider' });
      instance = sdkProvider(provider, config);
      instances.set(provider, instance);
    }
    return instance;
  }
  // Building an SDK model compiles its response schemas; one per model is kept (the factory itself is rebuilt
  // when the providers config changes, which drops these).
  const languageModels = new Map<string, LanguageModel>();
  return {
    languageModel: (ref) => {
      const key = `${ref.provider}/${ref.modelId}`;
      let model = languageModels.get(key);
      if (model === undefined) {
        model = instanceOf(ref.provider).languageModel(ref.modelId);
        languageModels.set(key, model);
      }
      return model;
    },
    embeddingModel: (ref) => instanceOf(ref.provider).embeddingModel(ref.modelId),
  };
}
