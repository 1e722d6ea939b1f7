// End to end: configured budgets hold before dispatch on a started gateway over the fake LLM — concurrent turns never
// spend past a $0.01 agent budget, /v1 refuses with 429 insufficient_quota through the openai SDK, a warn budget lets
// calls through and says so on /api/events, token and tenant budgets apply, sub-agent runs are refused and counted,
// and embeddings count tokens.
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import type { FleetHealthReport } from '../../src/obs/fleet/index.js';
import { openSse } from '../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

/** USD per million tokens, input and output alike. */
const PRICE_PER_MILLION = 10;
/** What the fake LLM reports for every call: 160 tokens, $0.0016 at the price above. */
const USAGE = { inputTokens: 10, outputTokens: 150 };
const CALL_COST_USD = ((USAGE.inputTokens + USAGE.outputTokens) * PRICE_PER_MILLION) / 1e6;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function pricedGateway(llm: FakeLlm, options: Partial<HarnessOptions>): Promise<Harness> {
  const harness = await startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        // A call may ask for at most 200 output tokens: its worst case is its input estimate plus 200.
        models: [
          {
            id: 'priced',
            contextWindow: 32_768,
            maxTokens: 200,
            cost: { input: PRICE_PER_MILLION, output: PRICE_PER_MILLION },
          },
        ],
      },
    },
    agents: {
      default: { name: 'Assistant', provider: 'fake', model: 'priced' },
      helper: { name: 'Helper', provider: 'fake', model: 'priced' },
    },
    ...options,
  });
  cleanups.push(() => harness.close());
  return harness;
}

async function rpc(harness: Harness, token: string, method: string, params: Record<string, unknown> = {}) {
  const response = await callRpc(harness.url, token, method, params);
  if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result as Record<string, unknown>;
}

interface Reply {
  response: string;
  finishReason: string;
  error?: string;
  errorKind?: string;
}

const execute = async (harness: Harness, token: string, params: Record<string, unknown>) =>
  (await rpc(harness, token, 'agent.execute', params)) as unknown as Reply;

const msUntilUtcMidnight = () => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime();
};

describe('a $0.01 budget on an agent', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  beforeAll(async () => {
    llm = await startFakeLlm({ defaultReply: () => ({ text: 'done', usage: USAGE }) });
  });
  afterAll(async () => {
    await llm.close();
  });

  it('holds under 20 concurrent clients: what the fake LLM was asked never costs more, the rest end budget_exceeded naming it', async () => {
    gateway = await pricedGateway(llm, {
      budgets: [{ id: 'agent-cap', scope: 'agent:default', window: 'day', maxCostUsd: 0.01 }],
    });
    const client = async (index: number) => {
      const replies: Reply[] = [];
      for (let turn = 0; turn < 3; turn += 1) {
        replies.push(
          await execute(gateway, gateway.tokens.admin, {
            message: `question ${turn} from client ${index}`,
            sessionKey: { tenantId: 'default', userId: `client-${index}`, channelId: 'budget' },
          }),
        );
      }
      return replies;
    };
    const replies = (await Promise.all(Array.from({ length: 20 }, (_, index) => client(index)))).flat();

    const answered = replies.filter((reply) => reply.finishReason === 'stop');
    const refused = replies.filter((reply) => reply.finishReason !== 'stop');
    const spentUsd = llm.chatRequests().length * CALL_COST_USD;
    expect(spentUsd).toBeLessThanOrEqual(0.01);
    expect(answered.length).toBe(llm.chatRequests().length);
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const reply of refused) {
      expect(reply).toMatchObject({ finishReason: 'budget_exceeded', errorKind: 'budget_exceeded', response: '' });
      expect(reply.error).toContain("Budget 'agent-cap'");
    }

    // The openai SDK: its 429 error, OpenAI's insufficient_quota type, code null, Retry-After to the day's end.
    const asked = llm.chatRequests().length;
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.tokens.api, maxRetries: 0 });
    const refusals = [
      () => openai.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'one more?' }] }),
      () =>
        openai.chat.completions.create({
          model: 'default',
          messages: [{ role: 'user', content: 'one more, streamed?' }],
          stream: true,
        }),
      () => openai.responses.create({ model: 'default', input: 'one more response?' }),
      () => openai.responses.create({ model: 'default', input: 'one more streamed response?', stream: true }),
    ];
    for (const refusal of refusals) {
      const error: unknown = await refusal().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(OpenAI.APIError);
      const apiError = error as InstanceType<typeof OpenAI.APIError>;
      expect(apiError.status).toBe(429);
      expect(apiError.type).toBe('insufficient_quota');
      expect(apiError.code).toBeNull();
      expect(apiError.message).toContain("Budget 'agent-cap'");
      const retryAfter = Number(apiError.headers?.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil(msUntilUtcMidnight() / 1000) + 1);
    }
    expect(llm.chatRequests()).toHaveLength(asked);
  });
});

describe('budgets by action, token and tenant', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm({ defaultReply: () => ({ text: 'done', usage: USAGE }) });
  });
  afterAll(async () => {
    await llm.close();
  });

  it('a warn budget lets calls past its limit through and emits budget:warning once on /api/events', async () => {
    const gateway = await pricedGateway(llm, {
      budgets: [{ id: 'soft', scope: 'token:api-client', maxCostUsd: 0.001, action: 'warn' }],
    });
    const events = await openSse(`${gateway.url}/api/events`, { authorization: `Bearer ${gateway.tokens.admin}` });
    cleanups.push(async () => events.close());
    await events.next();
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.tokens.api, maxRetries: 0 });
    for (const content of ['first', 'second']) {
      const completion = await openai.chat.completions.create({
        model: 'default',
        messages: [{ role: 'user', content }],
      });
      expect(completion.choices[0]?.message.content).toBe('done');
    }
    const frames = await events.until((frame) => frame.event === 'budget:warning');
    const payload = JSON.parse(frames.at(-1)?.data ?? '{}') as Record<string, unknown>;
    expect(payload).toMatchObject({
      budgetId: 'soft',
      scope: 'token:api-client',
      action: 'warn',
      limit: { costUsd: 0.001 },
    });
    expect(payload.windowEnd).toBe(Date.UTC(...utcDayParts(1)));
    expect(payload.windowStart).toBe(Date.UTC(...utcDayParts(0)));
    expect(llm.chatRequests().length).toBeGreaterThanOrEqual(2);
  });

  it("a token's budget refuses that token's turns and a tenant's budget that tenant's, before the fake LLM is asked", async () => {
    llm.reset();
    const gateway = await pricedGateway(llm, {
      budgets: [
        { id: 'rpc-tokens', scope: 'token:rpc-client', maxTokens: 100 },
        { id: 'acme-cap', scope: 'tenant:acme', maxTokens: 100 },
      ],
    });
    const byRpcToken = await execute(gateway, gateway.tokens.rpc, { message: 'hello' });
    expect(byRpcToken).toMatchObject({ finishReason: 'budget_exceeded', errorKind: 'budget_exceeded' });
    expect(byRpcToken.error).toContain("Budget 'rpc-tokens'");
    const inAcme = await execute(gateway, gateway.tokens.admin, {
      message: 'hello',
      sessionKey: { tenantId: 'acme', userId: 'ops', channelId: 'budget' },
    });
    expect(inAcme).toMatchObject({ finishReason: 'budget_exceeded' });
    expect(inAcme.error).toContain("Budget 'acme-cap'");
    expect(llm.chatRequests()).toHaveLength(0);

    // Neither budget is this token's or this tenant's.
    const elsewhere = await execute(gateway, gateway.tokens.admin, { message: 'hello' });
    expect(elsewhere).toMatchObject({ finishReason: 'stop', response: 'done' });
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('a sub-agent run is refused too: the run fails naming the budget, obs.explain names it, autonomy counts it', async () => {
    llm.reset();
    const gateway = await pricedGateway(llm, {
      budgets: [{ id: 'helper-cap', scope: 'agent:helper', maxCostUsd: 0.001 }],
    });
    const { runId } = (await rpc(gateway, gateway.tokens.admin, 'session.spawn', {
      parentKey: 'default:ops:test:parent',
      task: 'summarise the logs',
      agentId: 'helper',
    })) as { runId: string };
    await expect
      .poll(async () => (await rpc(gateway, gateway.tokens.admin, 'session.run_status', { run_id: runId })).status)
      .toBe('failed');
    const status = await rpc(gateway, gateway.tokens.admin, 'session.run_status', { run_id: runId });
    expect(JSON.stringify(status)).toContain("Budget 'helper-cap'");
    expect(llm.chatRequests()).toHaveLength(0);

    await expect
      .poll(async () => {
        const report = (await rpc(gateway, gateway.tokens.admin, 'obs.explain', {
          rootRunId: runId,
        })) as unknown as IncidentReport;
        return report.likelyRootCause;
      })
      .toMatchObject({ code: 'budget_exceeded', detail: expect.stringContaining("budget 'helper-cap'") });
    await expect
      .poll(
        async () =>
          ((await rpc(gateway, gateway.tokens.admin, 'obs.fleet.health')) as unknown as FleetHealthReport).autonomy
            ?.budgetBreaches,
      )
      .toBe(1);
  });

  it('embeddings count their tokens against the calling token: past the limit /v1/embeddings answers 429', async () => {
    llm.reset();
    const gateway = await pricedGateway(llm, {
      embeddings: { provider: 'fake', model: 'embedder' },
      budgets: [{ id: 'embed-tokens', scope: 'token:api-client', maxTokens: 30 }],
    });
    const embed = (input: string) =>
      fetch(`${gateway.url}/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.tokens.api}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'embedder', input }),
      });
    // 10 + 10 + 10 estimated tokens (ceil(characters / 4)) fill the 30; the fourth would cross it.
    for (let call = 0; call < 3; call += 1) expect((await embed('x'.repeat(40))).status).toBe(200);
    const refused = await embed('x'.repeat(4));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toEqual({
      error: {
        message: expect.stringContaining("Budget 'embed-tokens'"),
        type: 'insufficient_quota',
        param: null,
        code: null,
      },
    });
    expect(llm.requests.filter((request) => request.endpoint === 'embeddings')).toHaveLength(3);
    // Another token's embeddings are not this budget's.
    const byAdmin = await fetch(`${gateway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'embedder', input: 'x'.repeat(40) }),
    });
    expect(byAdmin.status).toBe(200);
  });
});

/** [year, month, day + offset] of today in UTC, for Date.UTC. */
function utcDayParts(offset: number): [number, number, number] {
  const now = new Date();
  return [now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + offset];
}
