// End to end: who sees budget:warning and budget:exhausted on /api/events — a token the events of its own
// `token:<id>` budgets, never another token's or the gateway's — and a warn budget past its limit reports
// budget:exhausted while its calls still run.
import { afterEach, describe, expect, it } from 'vitest';
import { openSse, type ReadFrame, type SseReader } from '../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

/** What the fake LLM reports for every call: 160 tokens. */
const USAGE = { inputTokens: 10, outputTokens: 150 };
const BOB = { id: 'bob', secret: 'bob-secret-0123456789abcdefghijklmnopqrs', scopes: ['rpc' as const] };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function gatewayWith(budgets: HarnessOptions['budgets']): Promise<{ gateway: Harness; llm: FakeLlm }> {
  const llm = await startFakeLlm({ defaultReply: () => ({ text: 'done', usage: USAGE }) });
  const gateway = await startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        // A call asks for at most 200 output tokens: its worst case is its input estimate plus 200.
        models: [{ id: 'priced', contextWindow: 32_768, maxTokens: 200, cost: { input: 10, output: 10 } }],
      },
    },
    agents: { default: { name: 'Assistant', provider: 'fake', model: 'priced' } },
    extraTokens: [BOB],
    budgets,
  });
  cleanups.push(async () => {
    await gateway.close();
    await llm.close();
  });
  return { gateway, llm };
}

async function events(gateway: Harness, secret: string): Promise<SseReader> {
  const stream = await openSse(`${gateway.url}/api/events`, { authorization: `Bearer ${secret}` });
  cleanups.push(async () => stream.close());
  expect(stream.status).toBe(200);
  return stream;
}

async function execute(gateway: Harness, secret: string, userId: string) {
  const response = await callRpc(gateway.url, secret, 'agent.execute', {
    message: 'hello',
    sessionKey: { tenantId: 'default', userId, channelId: 'budget' },
  });
  if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
  return response.result as { finishReason: string; error?: string };
}

const budgetFrame = (name: string, budgetId: string) => (frame: ReadFrame) =>
  frame.event === name && (JSON.parse(frame.data ?? '{}') as { budgetId?: string }).budgetId === budgetId;
const budgetIdsIn = (frames: readonly ReadFrame[]) =>
  frames
    .filter((frame) => frame.event?.startsWith('budget:') === true)
    .map((frame) => `${frame.event} ${(JSON.parse(frame.data ?? '{}') as { budgetId?: string }).budgetId}`);

describe('budget events for a token without admin', () => {
  it("a token sees its own token budgets' warning and exhaustion on /api/events, never another token's or the agent's", async () => {
    const { gateway } = await gatewayWith([
      // The rpc token's: a first call (about 205 reserved) reaches half of it, a third would cross it.
      { id: 'rpc-cap', scope: 'token:rpc-client', maxTokens: 400, warnAtFraction: 0.5 },
      // Bob's: every call of bob's is refused.
      { id: 'bob-cap', scope: 'token:bob', maxTokens: 100 },
      // The agent's: the gateway's, for admins only; its warning comes with the first call.
      { id: 'agent-watch', scope: 'agent:default', maxTokens: 10_000, warnAtFraction: 0.01 },
    ]);
    const admin = await events(gateway, gateway.tokens.admin);
    const mine = await events(gateway, gateway.tokens.rpc);
    const bobs = await events(gateway, BOB.secret);

    expect(await execute(gateway, BOB.secret, 'bob')).toMatchObject({ finishReason: 'budget_exceeded' });
    await admin.until(budgetFrame('budget:exhausted', 'bob-cap'));
    const replies = [];
    for (let turn = 0; turn < 3; turn += 1) replies.push(await execute(gateway, gateway.tokens.rpc, 'rpc'));
    expect(replies.map((reply) => reply.finishReason)).toEqual(['stop', 'stop', 'budget_exceeded']);
    await admin.until(budgetFrame('budget:exhausted', 'rpc-cap'));

    const seenByRpc = await mine.until(budgetFrame('budget:exhausted', 'rpc-cap'));
    expect(budgetIdsIn(seenByRpc)).toEqual(['budget:warning rpc-cap', 'budget:exhausted rpc-cap']);
    expect(JSON.parse(seenByRpc.find(budgetFrame('budget:exhausted', 'rpc-cap'))?.data ?? '{}')).toMatchObject({
      scope: 'token:rpc-client',
      action: 'block',
      limit: { tokens: 400 },
      used: { tokens: 320 },
    });

    // Bob's own session's next message comes after every event above: up to it bob saw only bob-cap's.
    const seenByBob = await bobs.until(budgetFrame('budget:exhausted', 'bob-cap'));
    expect(await execute(gateway, BOB.secret, 'bob')).toMatchObject({ finishReason: 'budget_exceeded' });
    seenByBob.push(...(await bobs.until((frame) => frame.event === 'message:received')));
    expect(budgetIdsIn(seenByBob)).toEqual(['budget:exhausted bob-cap']);
  });
});

describe('a warn budget past its limit', () => {
  it('emits budget:exhausted (action warn) once its calls cross the limit, and the calls still run', async () => {
    const { gateway, llm } = await gatewayWith([
      { id: 'soft', scope: 'token:rpc-client', maxTokens: 300, action: 'warn', warnAtFraction: 0.9 },
    ]);
    const admin = await events(gateway, gateway.tokens.admin);
    // 160 settled + about 205 reserved cross 300 on the second call.
    for (let turn = 0; turn < 3; turn += 1)
      expect(await execute(gateway, gateway.tokens.rpc, 'rpc')).toMatchObject({ finishReason: 'stop' });
    expect(llm.chatRequests()).toHaveLength(3);
    const frames = await admin.until(budgetFrame('budget:exhausted', 'soft'));
    expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toMatchObject({
      budgetId: 'soft',
      action: 'warn',
      limit: { tokens: 300 },
    });
  });
});
