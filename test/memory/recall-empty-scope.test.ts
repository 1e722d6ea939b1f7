// Recall skips an agent with no memories in the tenant: the turn makes no embeddings call and records no recall
// evidence; once something is stored, the next turn embeds its message and recalls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, tokensWithRpcTenants, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

describe('recall with an empty memory scope', () => {
  let llm: FakeLlm;
  let harness: Harness;
  const embeddingCalls = () => llm.requests.filter((request) => request.endpoint === 'embeddings').length;
  const execute = async (message: string, userId: string) => {
    const response = await callRpc(harness.url, harness.tokens.rpc, 'agent.execute', {
      message,
      sessionKey: { tenantId: 'acme', userId, channelId: 'chat' },
    });
    expect(response.error).toBeUndefined();
  };
  const recallOf = async (sessionKey: string) =>
    ((await callRpc(harness.url, harness.tokens.admin, 'obs.explain', { sessionKey })).result as IncidentReport).recall;

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 16000, maxTokens: 512 }],
        },
      },
      embeddings: { provider: 'fake', model: 'embed-small' },
      agents: {
        default: {
          name: 'Assistant',
          provider: 'fake',
          model: 'fake-model',
          systemPrompt: 'Be brief.',
          tools: ['memory_store'],
        },
      },
      // The rpc token works in tenant acme, which config gives it.
      gateway: { tokens: tokensWithRpcTenants(['acme']) },
    });
  }, 30_000);

  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  it('neither embeds nor records recall while the scope is empty, and recalls once an entry exists', async () => {
    await execute('What is the capital of Portugal?', 'dana');
    expect(embeddingCalls()).toBe(0);
    expect(await recallOf('acme:dana:chat')).toBeUndefined();

    llm.script(
      { toolCalls: [{ name: 'memory_store', arguments: { content: 'Dana lives in Lisbon' } }] },
      { text: 'Noted.' },
    );
    await execute('Remember that I live in Lisbon', 'dana');
    const afterStore = embeddingCalls();
    expect(afterStore).toBeGreaterThan(0);

    await execute('Where do I live?', 'erin');
    expect(embeddingCalls()).toBeGreaterThan(afterStore);
    expect(await recallOf('acme:erin:chat')).toMatchObject({ recalls: 1, lastFinalCount: 1 });
  });
});
