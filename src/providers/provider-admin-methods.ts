// providers.* methods (admin): the configured providers without their secrets, and adding, editing or deleting one
// through the config store (one commit naming the calling token; a new API key goes to secrets.yaml).
import { z } from 'zod';
import { REDACTED, type ConfigStore, type GatewayConfig } from '../config/index.js';
import { providerInUse, unknownProvider } from '../errors.js';
import { PROVIDER_TABLE, PROVIDER_TYPES } from '../provider-table.js';
import { defineMethod, noParams } from '../rpc/index.js';
import { isApiKeyConfigured, shownBaseUrlOf } from './provider-config.js';

/** Provider names are keys of `providers:`: the config schema's key alphabet, never `__proto__` and the like. */
const providerName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._-]+$/, 'use letters, digits, dot, underscore or hyphen')
  .refine((name) => !['__proto__', 'constructor', 'prototype'].includes(name), 'is a reserved name');

/** Model ids one provider lists; each becomes `{ id }` (an existing entry of that id keeps its other fields). */
const MAX_MODELS_PER_PROVIDER = 500;

const saveParams = z.strictObject({
  name: providerName,
  type: z.enum(PROVIDER_TYPES),
  /** null or "" removes a configured base URL (the type's default applies). */
  baseUrl: z.union([z.url().max(2_048), z.literal(''), z.null()]).optional(),
  /** Write-only: absent or "***" keeps the stored key, null removes it, any other text replaces it. */
  apiKey: z.union([z.string().max(8_192), z.null()]).optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxResponseBytes: z.number().int().positive().optional(),
  models: z.array(z.string().min(1).max(256)).max(MAX_MODELS_PER_PROVIDER).optional(),
});

type ProviderConfigSeen = GatewayConfig['providers'][string];

export interface ProviderAdminDeps {
  config: Pick<ConfigStore, 'get' | 'update'>;
}

/** A commit message naming the method, the provider and the token that called it. */
const byActor = (method: string, name: string, clientId: string) => `${method} ${name} by ${clientId}`;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One provider as the dashboard shows it: every non-secret field, and for the key only whether it is set. */
function describe(name: string, provider: ProviderConfigSeen, usedBy: string[]) {
  return {
    name,
    type: provider.type,
    baseUrl: provider.baseUrl === undefined ? null : shownBaseUrlOf(provider),
    defaultBaseUrl: PROVIDER_TABLE[provider.type].defaultBaseUrl,
    timeoutMs: provider.timeoutMs,
    maxResponseBytes: provider.maxResponseBytes,
    models: provider.models.map((model) => ({ id: model.id, displayName: model.displayName ?? model.id })),
    secrets: { apiKey: { isSet: isApiKeyConfigured(provider) } },
    usedBy,
  };
}

/** What names the provider: agents by `provider`, a `<provider>/…` model or fallback, and the embeddings. */
export function providerUsers(config: GatewayConfig, provider: string): string[] {
  const prefix = `${provider}/`;
  const users: string[] = [];
  for (const [agentId, agent] of Object.entries(config.agents)) {
    const models = [agent.model ?? '', ...agent.fallbackModels];
    if (agent.provider === provider || models.some((model) => model.startsWith(prefix)))
      users.push(`agent '${agentId}'`);
  }
  if (config.embeddings?.provider === provider) users.push('embeddings');
  return users;
}

/** The raw entry a save writes: the stored one (references and model details kept) with the given fields applied. */
function nextEntry(previous: unknown, params: z.infer<typeof saveParams>): Record<string, unknown> {
  const entry: Record<string, unknown> = isRecord(previous) ? { ...previous } : {};
  entry.type = params.type;
  if (params.baseUrl === null || params.baseUrl === '') delete entry.baseUrl;
  else if (params.baseUrl !== undefined) entry.baseUrl = params.baseUrl;
  if (params.apiKey === null) delete entry.apiKey;
  else if (params.apiKey !== undefined && params.apiKey !== REDACTED && params.apiKey !== '')
    entry.apiKey = params.apiKey;
  if (params.timeoutMs !== undefined) entry.timeoutMs = params.timeoutMs;
  if (params.maxResponseBytes !== undefined) entry.maxResponseBytes = params.maxResponseBytes;
  if (params.models !== undefined) {
    const stored = Array.isArray(entry.models) ? entry.models.filter(isRecord) : [];
    entry.models = [...new Set(params.models)].map((id) => stored.find((model) => model.id === id) ?? { id });
  }
  return entry;
}

export function providerAdminMethods({ config }: ProviderAdminDeps) {
  const list = () => {
    const current = config.get();
    return Object.entries(current.providers).map(([name, provider]) =>
      describe(name, provider, providerUsers(current, name)),
    );
  };
  const one = (name: string) => {
    const found = list().find((provider) => provider.name === name);
    if (found === undefined) throw unknownProvider(name, 'name');
    return found;
  };

  return [
    defineMethod({
      name: 'providers.list',
      scope: 'admin',
      summary:
        'The configured LLM providers: type, baseUrl (null: the type default, defaultBaseUrl), timeouts, models, the agents using each (usedBy) and for each secret field only whether it is set (secrets.apiKey.isSet).',
      params: noParams,
      handler: () => {
        const providers = list();
        return { providers, count: providers.length };
      },
    }),
    defineMethod({
      name: 'providers.save',
      scope: 'admin',
      summary:
        'Adds or edits one provider (fields not given keep their value), live at once as one config commit; apiKey is write-only: absent or "***" keeps the stored key, null removes it, a new key is kept in secrets.yaml.',
      params: saveParams,
      handler: async (params, ctx) => {
        const existed = params.name in config.get().providers;
        const method = existed ? 'providers.save (edit)' : 'providers.save (add)';
        await config.update(
          (raw) => {
            const providers = isRecord(raw.providers) ? { ...raw.providers } : {};
            providers[params.name] = nextEntry(providers[params.name], params);
            return { ...raw, providers };
          },
          byActor(method, params.name, ctx.caller.clientId),
        );
        return { provider: one(params.name), created: !existed };
      },
    }),
    defineMethod({
      name: 'providers.delete',
      scope: 'admin',
      summary:
        'Removes one provider from the config; refused (conflict) while agents or the embeddings use it, naming them.',
      params: z.strictObject({ name: providerName }),
      handler: async ({ name }, ctx) => {
        const current = config.get();
        if (!(name in current.providers)) throw unknownProvider(name, 'name');
        const users = providerUsers(current, name);
        if (users.length > 0) throw providerInUse(name, users);
        await config.update(
          (raw) => {
            const providers = isRecord(raw.providers) ? { ...raw.providers } : {};
            delete providers[name];
            return { ...raw, providers };
          },
          byActor('providers.delete', name, ctx.caller.clientId),
        );
        return { name, deleted: true };
      },
    }),
  ];
}
