// End to end: memory's own embedding calls (memory_store writes, recall of a turn's message) are paid by the turn's
// token, tenant and agent, not by the gateway: they count in that token's budget, and past it that token's memory
// writes are refused while another token's are not.
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function memoryGateway(budgets: HarnessOptions['budgets']): Promise<{ gateway: Harness; llm: FakeLlm }> {
  const llm = await startFakeLlm();
  const gateway = await startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow: 16_000, maxTokens: 200 }],
      },
    },
    agents: {
      default: {
        name: 'Assistant',
        provider: 'fake',
        model: 'fake-model',
        systemPrompt: 'Be brief.',
        tools: ['memory_search', 'memory_store'],
      },
    },
    embeddings: { provider: 'fake', model: 'embedder' },
    budgets,
  });
  cleanups.push(async () => {
    await gateway.close();
    await llm.close();
  });
  return { gateway, llm };
}

async function rpc(gateway: Harness, secret: string, method: string, params: Record<string, unknown> = {}) {
  const response = await callRpc(gateway.url, secret, method, params);
  if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result as Record<string, unknown>;
}

const execute = async (gateway: Harness, secret: string, userId: string, message: string) =>
  (await rpc(gateway, secret, 'agent.execute', {
    message,
    sessionKey: { tenantId: 'default', userId, channelId: 'memory' },
  })) as { finishReason: string; error?: string };

const embeddingRequests = (llm: FakeLlm) => llm.requests.filter((request) => request.endpoint === 'embeddings').length;

const storedContents = async (gateway: Harness) =>
  ((await rpc(gateway, gateway.tokens.admin, 'memory.browse', { limit: 100 })).entries as { content: string }[]).map(
    (entry) => entry.content,
  );

describe("memory embeddings pay as their turn's token", () => {
  it("counts a memory_store write's and a recall's embedded tokens in the turn token's budget, exactly", async () => {
    const { gateway, llm } = await memoryGateway([{ id: 'rpc-all', scope: 'token:rpc-client', maxTokens: 1_000_000 }]);
    const usage = { inputTokens: 10, outputTokens: 5 };
    // 400 characters: 100 estimated tokens embedded by the write.
    const fact = `The staging database lives in Lisbon. ${'x'.repeat(362)}`;
    llm.script(
      { toolCalls: [{ name: 'memory_store', arguments: { content: fact } }], usage },
      { text: 'Noted.', usage },
    );
    expect(await execute(gateway, gateway.tokens.rpc, 'rpc', 'Remember where staging lives')).toMatchObject({
      finishReason: 'stop',
    });
    expect(embeddingRequests(llm)).toBe(1);
    // The next turn recalls with its message: 40 characters, 10 estimated tokens.
    const question = 'Where does the staging database live?'.padEnd(40, '?');
    llm.script({ text: 'In Lisbon.', usage });
    expect(await execute(gateway, gateway.tokens.rpc, 'rpc', question)).toMatchObject({ finishReason: 'stop' });
    expect(embeddingRequests(llm)).toBe(2);

    const { usage: rows } = (await rpc(gateway, gateway.tokens.admin, 'budgets.usage', {
      scope: 'token:rpc-client',
    })) as { usage: { id: string; used: { tokens: number } }[] };
    // Three model calls of 15 tokens, the write's 100 and the recall's 10.
    expect(rows).toMatchObject([{ id: 'rpc-all', used: { tokens: 3 * 15 + 100 + 10 } }]);
  });

  it("refuses that token's memory writes past its limit, and another token's are stored", async () => {
    const { gateway, llm } = await memoryGateway([{ id: 'rpc-cap', scope: 'token:rpc-client', maxTokens: 100_000 }]);
    const fact = `Deploys happen on Tuesdays. ${'z'.repeat(372)}`;
    // The first model call fits; what it reports leaves 50 tokens, less than the write's 100.
    llm.script({
      toolCalls: [{ name: 'memory_store', arguments: { content: fact } }],
      usage: { inputTokens: 50, outputTokens: 99_900 },
    });
    const refused = await execute(gateway, gateway.tokens.rpc, 'rpc', 'Remember the deploy day');
    // The write is refused before its embedding is asked for; the turn's next model call is refused too.
    expect(refused).toMatchObject({ finishReason: 'budget_exceeded' });
    expect(refused.error).toContain("Budget 'rpc-cap'");
    expect(embeddingRequests(llm)).toBe(0);
    expect(await storedContents(gateway)).not.toContain(fact);
    const { usage: rows } = (await rpc(gateway, gateway.tokens.admin, 'budgets.usage', {
      scope: 'token:rpc-client',
    })) as { usage: { used: { tokens: number } }[] };
    expect(rows[0]?.used.tokens).toBe(99_950);

    // The admin token has no budget: the same write is embedded and stored.
    llm.script({ toolCalls: [{ name: 'memory_store', arguments: { content: fact } }] }, { text: 'Noted.' });
    expect(await execute(gateway, gateway.tokens.admin, 'ops', 'Remember the deploy day')).toMatchObject({
      finishReason: 'stop',
    });
    expect(embeddingRequests(llm)).toBe(1);
    expect(await storedContents(gateway)).toContain(fact);
  });
});
