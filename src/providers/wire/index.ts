// Wire adapters: our own OpenAI Chat, Anthropic Messages and Gemini protocol clients behind one WireAdapter seam.
import { PROVIDER_TABLE, type ProviderType, type WireProtocol } from '../../provider-table.js';
import { anthropicAuth, createAnthropicMessagesAdapter } from './anthropic-messages.js';
import { refusalsOf } from './call-fields.js';
import { createGoogleGeminiAdapter, geminiAuth } from './google-gemini.js';
import { createWireHttp, type WireHttp } from './http.js';
import { createOpenAiChatAdapter, openAiChatAuth } from './openai-chat.js';
import type { WireAdapter, WireAdapterOptions, WireSetup } from './types.js';

export { ProviderCallError, statusKind, toProviderCallError, type ProviderErrorKind } from './errors.js';
export { maskLiterals } from './upstream-message.js';
export type { WireAdapter, WireAdapterOptions, WireCallOptions, WireCallRequest, WireEvent } from './types.js';

/** How each protocol is spoken: its credential headers (none without a key) and its adapter. */
const PROTOCOLS: {
  readonly [P in WireProtocol]: {
    authHeaders(apiKey: string | undefined): Record<string, string>;
    create(http: WireHttp, setup: WireSetup): WireAdapter;
  };
} = {
  'openai-chat': { authHeaders: openAiChatAuth, create: createOpenAiChatAdapter },
  'anthropic-messages': { authHeaders: anthropicAuth, create: createAnthropicMessagesAdapter },
  'google-gemini': { authHeaders: geminiAuth, create: createGoogleGeminiAdapter },
};

function extraHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const lowered: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) lowered[name.toLowerCase()] = value;
  return lowered;
}

/**
 * One adapter per configured provider, spoken as its type's table row says: its own keep-alive pool, headers and
 * refused call fields worked out once. Close it when the provider goes.
 */
export function createWireAdapter(type: ProviderType, options: WireAdapterOptions): WireAdapter {
  const row = PROVIDER_TABLE[type];
  const protocol = PROTOCOLS[row.protocol];
  const apiKey = options.apiKey === undefined || options.apiKey.length === 0 ? undefined : options.apiKey;
  const http = createWireHttp({
    baseUrl: options.baseUrl,
    headers: {
      'content-type': 'application/json',
      ...protocol.authHeaders(apiKey),
      ...extraHeaders(options.headers),
    },
    timeoutMs: options.timeoutMs,
    maxConnections: options.maxConnections,
    traceparent: options.traceparent,
  });
  return protocol.create(http, {
    unsupported: refusalsOf(row.honours),
    maxTokensField: row.maxTokensField,
    defaultMaxOutputTokens: options.defaultMaxOutputTokens,
  });
}
