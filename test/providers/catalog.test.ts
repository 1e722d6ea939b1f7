// The model catalog built from providers: config (every provider type, google included), resolve and the load event.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.js';
import { isGatewayError } from '../../src/errors.js';
import { PROVIDER_TABLE } from '../../src/providers/index.js';
import { startFakeLlm } from '../support/fake-llm-server.js';
import { callRequest, collect, createRouterFixture } from './router-fixture.js';

const providers = {
  local: {
    type: 'openai-compatible' as const,
    baseUrl: 'http://127.0.0.1:11434/v1/',
    models: [
      { id: 'llama3.2', displayName: 'Llama 3.2', contextWindow: 131_072, maxTokens: 2048 },
      { id: 'meta-llama/Llama-3-8B' },
    ],
  },
  gemini: {
    type: 'google' as const,
    apiKey: 'g-key',
    models: [
      {
        id: 'gemini-2.0-flash',
        input: ['text' as const, 'image' as const],
        reasoning: true,
        cost: { input: 0.1, output: 0.4 },
      },
    ],
  },
  claude: { type: 'anthropic' as const, apiKey: 'a-key', models: [{ id: 'claude-sonnet-4-5' }] },
};

describe('model catalog', () => {
  it("lists every configured model as the spec's Model entry, defaults filled in", () => {
    const { router } = createRouterFixture(providers);
    expect(router.providers()).toEqual(['local', 'gemini', 'claude']);
    expect(router.catalog().map((entry) => `${entry.provider}/${entry.modelId}`)).toEqual([
      'local/llama3.2',
      'local/meta-llama/Llama-3-8B',
      'gemini/gemini-2.0-flash',
      'claude/claude-sonnet-4-5',
    ]);
    expect(router.entry({ provider: 'local', modelId: 'llama3.2' })).toEqual({
      provider: 'local',
      modelId: 'llama3.2',
      displayName: 'Llama 3.2',
      contextWindow: 131_072,
      maxTokens: 2048,
      baseUrl: 'http://127.0.0.1:11434/v1',
      input: ['text'],
      reasoning: false,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      validated: false,
      validatedAt: null,
      tier: 'frontier',
    });
  });

  it("carries each model's capability tier from the config into its entry (frontier when unset)", () => {
    const { router } = createRouterFixture({
      local: {
        type: 'openai-compatible',
        baseUrl: 'http://127.0.0.1:11434/v1',
        models: [{ id: 'big' }, { id: 'mini', tier: 'small' }, { id: 'tiny', tier: 'nano' }],
      },
    });
    expect(router.entry({ provider: 'local', modelId: 'big' })?.tier).toBe('frontier');
    expect(router.entry({ provider: 'local', modelId: 'mini' })?.tier).toBe('small');
    expect(router.entry({ provider: 'local', modelId: 'tiny' })?.tier).toBe('nano');
    expect(router.catalog().map((entry) => entry.tier)).toEqual(['frontier', 'small', 'nano']);
  });

  it('builds the google provider and its entry with the default base URL', () => {
    const { router } = createRouterFixture(providers);
    expect(router.entry({ provider: 'gemini', modelId: 'gemini-2.0-flash' })).toMatchObject({
      displayName: 'gemini-2.0-flash',
      baseUrl: PROVIDER_TABLE.google.defaultBaseUrl,
      input: ['text', 'image'],
      reasoning: true,
      cost: { input: 0.1, output: 0.4, cacheRead: 0, cacheWrite: 0 },
    });
    expect(router.providerInfo('gemini')).toEqual({
      name: 'gemini',
      type: 'google',
      baseUrl: PROVIDER_TABLE.google.defaultBaseUrl,
      timeoutMs: 120_000,
      isApiKeyConfigured: true,
    });
    expect(router.entry({ provider: 'claude', modelId: 'claude-sonnet-4-5' })?.baseUrl).toBe(
      PROVIDER_TABLE.anthropic.defaultBaseUrl,
    );
  });

  it('calls a google model through the Gemini wire (the fake server does not speak it: a bad request)', async () => {
    const llm = await startFakeLlm();
    try {
      const { router } = createRouterFixture({ gemini: { type: 'google', apiKey: 'k', baseUrl: llm.baseUrl } });
      const { error } = await collect(router.stream(callRequest({ provider: 'gemini', modelId: 'gemini-2.0-flash' })));
      expect(isGatewayError(error) && error.details).toMatchObject({
        errorKind: 'bad_request',
        model: 'gemini/gemini-2.0-flash',
      });
    } finally {
      await llm.close();
    }
  });

  it('resolves <provider>/<modelId> and bare ids of listed models only', () => {
    const { router } = createRouterFixture(providers);
    expect(router.resolve('local/llama3.2')).toEqual({ provider: 'local', modelId: 'llama3.2' });
    expect(router.resolve('llama3.2')).toEqual({ provider: 'local', modelId: 'llama3.2' });
    expect(router.resolve('local/meta-llama/Llama-3-8B')).toEqual({
      provider: 'local',
      modelId: 'meta-llama/Llama-3-8B',
    });
    expect(router.resolve('meta-llama/Llama-3-8B')).toEqual({ provider: 'local', modelId: 'meta-llama/Llama-3-8B' });
    expect(router.resolve('local/unlisted')).toBeUndefined();
    expect(router.resolve('ghost/llama3.2')).toBeUndefined();
    expect(router.resolve('nothing')).toBeUndefined();
  });

  it('emits model:catalog_loaded once at creation with the counts', async () => {
    const fixture = createRouterFixture(providers);
    await new Promise(setImmediate);
    expect(fixture.eventsNamed('model:catalog_loaded').map((event) => event.payload)).toEqual([
      { providers: 3, models: 4 },
    ]);
  });

  it('hands out copies: changing an entry does not change the catalog', () => {
    const { router } = createRouterFixture(providers);
    const entry = router.catalog()[0];
    if (entry === undefined) throw new Error('empty catalog');
    entry.cost.input = 99;
    entry.validated = true;
    expect(router.catalog()[0]).toMatchObject({ validated: false, cost: { input: 0 } });
  });

  it('reloads a new providers: config, keeping validation marks of models still listed', async () => {
    const llm = await startFakeLlm();
    try {
      const local = { type: 'openai-compatible' as const, baseUrl: llm.baseUrl, models: [{ id: 'm1' }] };
      const fixture = createRouterFixture({ local });
      await collect(fixture.router.stream(callRequest({ provider: 'local', modelId: 'm1' })));
      const next = validateConfig(
        {
          providers: {
            local: { ...local, models: [{ id: 'm1' }, { id: 'm2' }] },
            extra: { type: 'openai', apiKey: 'k' },
          },
        },
        'test',
      );
      fixture.router.reload(next.providers);
      await new Promise(setImmediate);
      expect(fixture.router.providers()).toEqual(['local', 'extra']);
      expect(fixture.router.catalog().map((entry) => [entry.modelId, entry.validated])).toEqual([
        ['m1', true],
        ['m2', false],
      ]);
      expect(fixture.eventsNamed('model:catalog_loaded').map((event) => event.payload)).toEqual([
        { providers: 1, models: 1 },
        { providers: 2, models: 2 },
      ]);
    } finally {
      await llm.close();
    }
  });
});
