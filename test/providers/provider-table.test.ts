// The provider table is the one source of what a provider type is: the config enum, the call settings refused, the
// embeddings check, the audio engine, the credential check and the served-window discovery all follow its rows.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticProviderCheck } from '../../src/agents/agent-registry.js';
import { buildEngines } from '../../src/audio/engines.js';
import { providerConfigSchema, validateConfig, type GatewayConfig } from '../../src/config/index.js';
import {
  CALL_FIELDS,
  PROVIDER_TABLE,
  PROVIDER_TYPES,
  type CallField,
  type ProviderType,
} from '../../src/providers/index.js';
import { discoverServedWindows } from '../../src/providers/served-window.js';
import { createWireAdapter, type WireCallOptions } from '../../src/providers/wire/index.js';

/** Every call field asked at once; json_object and json_schema cannot both be, so `format` picks one. */
function everything(format: 'json_object' | 'json_schema'): WireCallOptions {
  return {
    sampling: {
      temperature: 0.5,
      topP: 0.9,
      maxOutputTokens: 100,
      stop: ['END'],
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      logitBias: { '42': 1 },
    },
    responseFormat:
      format === 'json_object' ? { type: 'json_object' } : { type: 'json_schema', name: 'answer', schema: {} },
    toolChoice: 'auto',
    parallelToolCalls: false,
    reasoningEffort: 'low',
    serviceTier: 'flex',
    promptCacheKey: 'cache-key',
    safetyIdentifier: 'user-hash',
    verbosity: 'low',
  };
}

/** Refusals answer before any audio is read. */
const NO_AUDIO = { wavPath: '/nonexistent.wav', wav: Buffer.alloc(0), signal: AbortSignal.abort() };

const providerOf = (type: ProviderType, extra: Record<string, unknown> = {}) => ({
  type,
  apiKey: 'key',
  baseUrl: 'http://127.0.0.1:9/v1',
  models: [{ id: 'model-a' }],
  ...extra,
});

describe('provider table', () => {
  it('has one row per type the config accepts, each with every capability', () => {
    expect(Object.keys(PROVIDER_TABLE).sort()).toEqual([...PROVIDER_TYPES].sort());
    expect(providerConfigSchema.shape.type.options).toEqual([...PROVIDER_TYPES]);
    for (const type of PROVIDER_TYPES) {
      const row = PROVIDER_TABLE[type];
      expect(row.protocol).toMatch(/^(openai-chat|anthropic-messages|google-gemini)$/);
      expect(URL.canParse(row.defaultBaseUrl)).toBe(true);
      for (const flag of [row.requiresMaxTokens, row.canEmbed, row.canTranscribe, row.selfHosted])
        expect(typeof flag).toBe('boolean');
      expect(row.honours.every((field) => CALL_FIELDS.includes(field))).toBe(true);
    }
  });

  it.each(PROVIDER_TYPES)('%s: a call is refused for exactly the fields its row does not honour', async (type) => {
    const adapter = createWireAdapter(type, { baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 1_000 });
    const refused = (other: CallField) =>
      CALL_FIELDS.filter((field) => field !== other && !PROVIDER_TABLE[type].honours.includes(field));
    try {
      expect(adapter.unsupported(everything('json_object'))).toEqual(refused('responseFormat.json_schema'));
      expect(adapter.unsupported(everything('json_schema'))).toEqual(refused('responseFormat.json_object'));
      expect(adapter.unsupported({ sampling: {}, parallelToolCalls: true })).toEqual([]);
    } finally {
      await adapter.close();
    }
  });

  it.each(PROVIDER_TYPES)('%s: config validation takes it as the embeddings provider only if it can embed', (type) => {
    const document = { providers: { p: providerOf(type) }, embeddings: { provider: 'p', model: 'model-a' } };
    if (PROVIDER_TABLE[type].canEmbed) expect(validateConfig(document, 'test').embeddings?.provider).toBe('p');
    else expect(() => validateConfig(document, 'test')).toThrow(/has no embeddings endpoint/);
  });

  it.each(PROVIDER_TYPES)(
    '%s: the audio engine uses it only if it can transcribe, keyless only if self-hosted',
    async (type) => {
      const configOf = (extra: Record<string, unknown>): GatewayConfig =>
        validateConfig(
          {
            providers: { p: providerOf(type, extra) },
            audio: { engines: [{ kind: 'openai-compatible', provider: 'p' }] },
          },
          'test',
        );
      const [keyless] = buildEngines(configOf({ apiKey: undefined }));
      const row = PROVIDER_TABLE[type];
      if (!row.canTranscribe) {
        const outcome = await keyless?.transcribe(NO_AUDIO);
        expect(outcome).toMatchObject({ ok: false, errorKind: 'dependency' });
        return;
      }
      if (row.selfHosted) expect(keyless?.identity).toMatchObject({ provider: 'p', keyless: true });
      else
        expect(await keyless?.transcribe(NO_AUDIO)).toMatchObject({
          ok: false,
          errorKind: 'auth_required',
        });
    },
  );

  it.each(PROVIDER_TYPES)('%s: the credential check wants a baseUrl if self-hosted, else an apiKey', async (type) => {
    const check = async (extra: Record<string, unknown>) =>
      staticProviderCheck('p', { config: validateConfig({ providers: { p: providerOf(type, extra) } }, 'test') });
    const selfHosted = PROVIDER_TABLE[type].selfHosted;
    expect(await check({ apiKey: undefined })).toEqual(
      selfHosted ? { ok: true } : { ok: false, error: expect.stringContaining('apiKey is empty') },
    );
    expect(await check({ baseUrl: undefined })).toEqual(
      selfHosted ? { ok: false, error: 'baseUrl is not set' } : { ok: true },
    );
  });

  describe('served windows', () => {
    let server: Server;
    let baseUrl = '';
    let asked = 0;
    beforeAll(async () => {
      server = createServer((_req, res) => {
        asked += 1;
        res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it.each(PROVIDER_TYPES)('%s: the server is asked only if its row says it reports a window', async (type) => {
      asked = 0;
      const config = providerConfigSchema.parse(providerOf(type, { baseUrl }));
      await discoverServedWindows(config, ['model-a'], { signal: AbortSignal.timeout(5_000) });
      expect(asked > 0).toBe(PROVIDER_TABLE[type].servedWindow !== undefined);
    });
  });
});
