// models.* and agent.getOperationModels / agent.cacheStats over JSON-RPC, against a fake LLM server.
import type { Caller } from '../../src/server/types.js';
import { createEventBus } from '../../src/events/index.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgentRegistry } from '../../src/agents/agent-registry.js';
import { createConfigStore, createGitHistory, type ConfigStore } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/index.js';
import { createHashingEmbedder, createModelRouter, type GatewayModelRouter } from '../../src/providers/index.js';
import { createDispatcher, createRegistry, RPC_CODE, type Dispatcher } from '../../src/rpc/index.js';
import { agentModelMethods } from '../../src/agents/index.js';
import { modelMethods } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';

const ADMIN: Caller = { clientId: 'admin', scopes: ['*'] };
const RPC_ONLY: Caller = { clientId: 'rpc-client', scopes: ['rpc'] };
const log = createLogger({ level: 'silent' });

function configText(llmUrl: string, extraProviders = ''): string {
  return `providers:
  local:
    type: openai-compatible
    baseUrl: ${llmUrl}
    timeoutMs: 5000
    models:
      - { id: llama3.2, displayName: Llama 3.2, cost: { input: 1, output: 2 } }
  cloud:
    type: anthropic
    apiKey: sk-test-key
    baseUrl: ${llmUrl}
    models:
      - { id: claude-haiku }
${extraProviders}agents:
  default: { name: Assistant, provider: local, model: llama3.2 }
  bare: { name: Bare, model: cloud/claude-haiku }
  unset: { name: Unset }
`;
}

describe('models.* and agent model methods', () => {
  let llm: FakeLlm;
  let dataDir: string;
  let store: ConfigStore;
  let router: GatewayModelRouter;
  let dispatcher: Dispatcher;
  let methodNames: string[];

  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
  });

  async function setUp(document: string): Promise<void> {
    dataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-rpc-models-'));
    const configPath = join(dataDir, 'config.yaml');
    await writeFile(configPath, document);
    store = await createConfigStore({
      configPath,
      history: createGitHistory({ dataDir, configPath, env: {} }),
      env: {},
      log,
    });
    const events = createEventBus({ now: Date.now, log });
    const config = store.get();
    router = createModelRouter({ config: config.providers, events, log });
    store.onChange((change) => router.reload(change.config.providers));
    const agents = createAgentRegistry({ configStore: store, events, log });
    const methods = [
      ...modelMethods({ router, breakerState: (provider) => router.breakerState(provider) }),
      ...agentModelMethods({
        agents,
        router,
        embeddings: () => store.get().embeddings,
        builtinEmbedder: createHashingEmbedder(),
      }),
    ];
    methodNames = methods.map((method) => method.name);
    dispatcher = createDispatcher({ registry: createRegistry(methods), maxBatchSize: 50 });
  }

  beforeEach(async () => {
    llm.reset();
    await setUp(configText(llm.baseUrl));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  async function call(method: string, params: unknown = {}, caller: Caller = ADMIN) {
    const response = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 1, method, params },
      { caller, transport: 'http', log, signal: new AbortController().signal },
    );
    if (response === null || Array.isArray(response)) throw new Error('expected one response');
    return response;
  }

  async function result(method: string, params: unknown = {}): Promise<unknown> {
    const response = await call(method, params);
    if ('error' in response) throw new Error(`${method} failed: ${response.error.message}`);
    return response.result;
  }

  async function failure(method: string, params: unknown = {}, caller: Caller = ADMIN) {
    const response = await call(method, params, caller);
    if (!('error' in response)) throw new Error(`${method} unexpectedly succeeded`);
    return response.error;
  }

  it('are all admin-scoped: an rpc-only token gets -32603', async () => {
    expect([...methodNames].sort()).toEqual([
      'agent.cacheStats',
      'agent.getOperationModels',
      'models.list',
      'models.list_providers',
      'models.test',
    ]);
    for (const name of methodNames) {
      expect(await failure(name, {}, RPC_ONLY)).toEqual({
        code: -32603,
        message: "Insufficient scope: requires 'admin'",
        data: { kind: 'forbidden' },
      });
    }
  });

  it('models.list_providers names the configured providers with their circuit breakers', async () => {
    const closed = { state: 'closed', consecutiveFailures: 0, openedAt: null, retryAt: null };
    expect(await result('models.list_providers')).toEqual({
      providers: ['local', 'cloud'],
      count: 2,
      breakers: { local: closed, cloud: closed },
    });
  });

  it('models.list returns catalog entries, filtered by provider; an unknown provider is not found', async () => {
    const all = await result('models.list');
    expect(all).toHaveLength(2);
    expect(await result('models.list', { provider: 'local' })).toEqual([
      {
        provider: 'local',
        modelId: 'llama3.2',
        displayName: 'Llama 3.2',
        contextWindow: 128_000,
        maxTokens: 4096,
        baseUrl: llm.baseUrl,
        input: ['text'],
        reasoning: false,
        cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
        validated: false,
        validatedAt: null,
        tier: 'frontier',
      },
    ]);
    expect(await failure('models.list', { provider: 'nope' })).toMatchObject({
      code: RPC_CODE.not_found,
      message: "Unknown provider 'nope'",
    });
    expect(await failure('models.list', { extra: true })).toMatchObject({ code: -32602 });
  });

  it('models.test does a real round trip, marks the model validated, and reports failures in the result', async () => {
    llm.script({ text: 'pong' });
    expect(await result('models.test', { model: 'local/llama3.2' })).toMatchObject({
      ok: true,
      provider: 'local',
      latencyMs: expect.any(Number),
    });
    expect(llm.chatRequests()[0]?.body).toMatchObject({ model: 'llama3.2' });
    expect(router.entry({ provider: 'local', modelId: 'llama3.2' })).toMatchObject({
      validated: true,
      validatedAt: expect.any(String),
    });

    llm.script({ status: 401 });
    expect(await result('models.test', { model: 'claude-haiku' })).toEqual({
      ok: false,
      provider: 'cloud',
      latencyMs: expect.any(Number),
      error: 'auth (HTTP 401)',
    });
    expect(llm.chatRequests()[1]?.endpoint).toBe('anthropic-messages');

    llm.script({ text: 'pong' });
    expect(await result('models.test', { model: 'not-listed-yet', provider: 'local' })).toMatchObject({
      ok: true,
      provider: 'local',
    });
  });

  it('models.test refuses an unknown model or provider', async () => {
    expect(await failure('models.test', { model: 'ghost-model' })).toMatchObject({
      message: expect.stringContaining("Unknown model 'ghost-model'"),
    });
    expect(await failure('models.test', { model: 'x', provider: 'ghost' })).toMatchObject({
      message: "Unknown provider 'ghost'",
    });
    expect(await failure('models.test', {})).toMatchObject({ code: -32602 });
  });

  it('agent.getOperationModels describes chat, compaction and embedding for an agent', async () => {
    expect(await result('agent.getOperationModels', { agentId: 'default' })).toEqual({
      agentId: 'default',
      primaryModel: 'local/llama3.2',
      providerFamily: 'openai-compatible',
      tieringActive: false,
      operations: [
        {
          operationType: 'chat',
          model: 'local/llama3.2',
          provider: 'local',
          source: 'config',
          tieringActive: false,
          timeoutMs: 5000,
          crossProvider: false,
          apiKeyConfigured: false,
        },
        {
          operationType: 'compaction',
          model: 'local/llama3.2',
          provider: 'local',
          source: 'config',
          tieringActive: false,
          timeoutMs: 5000,
          crossProvider: false,
          apiKeyConfigured: false,
        },
        {
          operationType: 'embedding',
          model: 'builtin/hashing-256',
          provider: 'builtin',
          source: 'default',
          tieringActive: false,
          timeoutMs: null,
          crossProvider: false,
          apiKeyConfigured: false,
        },
      ],
    });
    expect(await result('agent.getOperationModels', { agentId: 'bare' })).toMatchObject({
      primaryModel: 'cloud/claude-haiku',
      providerFamily: 'anthropic',
      operations: [{ provider: 'cloud', apiKeyConfigured: true, timeoutMs: 120_000 }, {}, {}],
    });
    expect(await result('agent.getOperationModels', { agentId: 'unset' })).toMatchObject({
      primaryModel: null,
      providerFamily: null,
      operations: [
        { operationType: 'chat', model: null, source: 'default' },
        { operationType: 'compaction', model: 'local/llama3.2', source: 'default' },
        {},
      ],
    });
    expect(await failure('agent.getOperationModels', { agentId: 'ghost' })).toMatchObject({
      message: expect.stringContaining('ghost'),
    });
  });

  it('agent.getOperationModels follows a config change to embeddings: (cross-provider when it differs)', async () => {
    await store.patch({
      providers: { emb: { type: 'openai', apiKey: 'k', baseUrl: llm.baseUrl } },
      embeddings: { provider: 'emb', model: 'text-embedding-3-small' },
    });
    const report = await result('agent.getOperationModels', { agentId: 'default' });
    expect(report).toMatchObject({
      operations: [
        {},
        {},
        {
          operationType: 'embedding',
          model: 'emb/text-embedding-3-small',
          provider: 'emb',
          source: 'config',
          crossProvider: true,
          apiKeyConfigured: true,
          timeoutMs: 120_000,
        },
      ],
    });
  });

  it('agent.cacheStats counts calls that read cached prompt tokens, per agent and overall', async () => {
    const ref = { provider: 'local', modelId: 'llama3.2' };
    const drain = async (agentId: string) => {
      for await (const event of router.stream({
        primary: ref,
        fallbacks: [],
        system: '',
        messages: [{ role: 'user', content: 'hi', timestamp: 0 }],
        tools: [],
        agentId,
        sessionKey: 's',
        signal: new AbortController().signal,
      }))
        void event;
    };
    llm.script(
      { text: 'a', usage: { inputTokens: 100, cacheReadTokens: 80 } },
      { text: 'b' },
      { text: 'c', usage: { inputTokens: 50, cacheReadTokens: 20 } },
    );
    await drain('default');
    await drain('default');
    await drain('bare');
    expect(await result('agent.cacheStats', { agentId: 'default' })).toEqual({
      hits: 1,
      misses: 1,
      hitRate: 0.5,
      cachedTokens: 80,
    });
    expect(await result('agent.cacheStats', {})).toEqual({ hits: 2, misses: 1, hitRate: 2 / 3, cachedTokens: 100 });
    expect(await result('agent.cacheStats', { agentId: 'unset' })).toEqual({
      hits: 0,
      misses: 0,
      hitRate: 0,
      cachedTokens: 0,
    });
    expect(await failure('agent.cacheStats', { agentId: 'ghost' })).toMatchObject({
      message: expect.stringContaining('ghost'),
    });
  });
});
