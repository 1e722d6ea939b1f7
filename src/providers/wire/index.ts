// Wire adapters: our own OpenAI Chat, Anthropic Messages and Gemini protocol clients behind one WireAdapter seam.
import { ANTHROPIC_VERSION, createAnthropicMessagesAdapter } from './anthropic-messages.js';
import { createGoogleGeminiAdapter } from './google-gemini.js';
import { createWireHttp } from './http.js';
import { createOpenAiChatAdapter } from './openai-chat.js';
import type { WireAdapter, WireAdapterOptions, WireProviderType } from './types.js';

export { argumentsText, toolInput } from './decoding.js';
export {
  ProviderCallError,
  retryAfterMsOf,
  statusKind,
  toProviderCallError,
  type ProviderErrorKind,
} from './errors.js';
export { maskLiterals, maskSecrets, UPSTREAM_MESSAGE_MAX_CHARS, upstreamMessageOf } from './upstream-message.js';
export type {
  WireAdapter,
  WireAdapterOptions,
  WireCallOptions,
  WireCallRequest,
  WireEmbedRequest,
  WireEmbedResult,
  WireEvent,
  WireProtocol,
  WireProviderType,
  WireReasoningEffort,
  WireResponseFormat,
  WireSampling,
  WireServiceTier,
  WireToolChoice,
  WireVerbosity,
} from './types.js';

/** Each protocol's credential header; no header at all when no key is configured (keyless local servers). */
function authHeaders(type: WireProviderType, apiKey: string | undefined): Record<string, string> {
  const hasKey = apiKey !== undefined && apiKey.length > 0;
  switch (type) {
    case 'openai':
    case 'openai-compatible':
      return hasKey ? { authorization: `Bearer ${apiKey}` } : {};
    case 'anthropic':
      return hasKey
        ? { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION }
        : { 'anthropic-version': ANTHROPIC_VERSION };
    case 'google':
      return hasKey ? { 'x-goog-api-key': apiKey } : {};
  }
}

function extraHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const lowered: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) lowered[name.toLowerCase()] = value;
  return lowered;
}

/** One adapter per configured provider: its own keep-alive pool, headers built once. Close it when the provider goes. */
export function createWireAdapter(type: WireProviderType, options: WireAdapterOptions): WireAdapter {
  const http = createWireHttp({
    baseUrl: options.baseUrl,
    headers: {
      'content-type': 'application/json',
      ...authHeaders(type, options.apiKey),
      ...extraHeaders(options.headers),
    },
    timeoutMs: options.timeoutMs,
    maxConnections: options.maxConnections,
  });
  switch (type) {
    case 'openai':
    case 'openai-compatible':
      return createOpenAiChatAdapter(http, { isOfficialOpenAi: type === 'openai' });
    case 'anthropic':
      return createAnthropicMessagesAdapter(http, options.defaultMaxOutputTokens);
    case 'google':
      return createGoogleGeminiAdapter(http);
  }
}
