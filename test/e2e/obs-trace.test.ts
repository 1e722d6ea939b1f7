// obs.trace.get over real turns: one turn's waterfall (model call, two tool calls, model call) read from the evidence
// the turn recorded, with the owner's rpc token allowed, another token refused, and an unknown trace not_found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

interface Span {
  kind: string;
  name: string;
  startOffsetMs: number;
  durationMs: number | null;
  outcome: string;
  [field: string]: unknown;
}

interface TraceAnswer {
  traceId: string;
  sessionKey: string;
  agentId: string;
  endReason: string | null;
  totals: Record<string, number>;
  spans: Span[];
  spanCount: number;
  truncated: boolean;
}

describe('obs.trace.get', () => {
  let llm: FakeLlm;
  let harness: Harness;
  let traceId: string;
  let adminTraceId: string;

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512, cost: { input: 1, output: 2 } }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model', tools: ['current_time'] } },
    });
    llm.script(
      {
        toolCalls: [
          { name: 'current_time', arguments: {} },
          { name: 'current_time', arguments: { timezone: 'Mars/Olympus' } },
        ],
        usage: { inputTokens: 40, outputTokens: 5 },
      },
      { text: 'It is noon.', usage: { inputTokens: 60, outputTokens: 7 } },
      { text: 'Hello admin.', usage: { inputTokens: 10, outputTokens: 2 } },
    );
    const own = await callRpc(harness.url, harness.tokens.rpc, 'agent.execute', {
      message: 'What time is it?',
      sessionKey: { tenantId: 'default', userId: 'rpc-client', channelId: 'trace' },
    });
    expect(own.error).toBeUndefined();
    const other = await callRpc(harness.url, harness.tokens.admin, 'agent.execute', {
      message: 'Hi',
      sessionKey: { tenantId: 'default', userId: 'admin', channelId: 'trace' },
    });
    expect(other.error).toBeUndefined();
    const rowsOf = async (chatId: string) =>
      (
        (await callRpc(harness.url, harness.tokens.admin, 'obs.trace.search', { chatId })).result as {
          rows: { traceId: string }[];
        }
      ).rows;
    traceId = (await rowsOf('default:rpc-client:trace'))[0]?.traceId ?? '';
    adminTraceId = (await rowsOf('default:admin:trace'))[0]?.traceId ?? '';
  }, 30_000);

  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  it('answers the turn as ordered spans: model call, both tool calls with durations, model call', async () => {
    const response = await callRpc(harness.url, harness.tokens.admin, 'obs.trace.get', { traceId });
    expect(response.error).toBeUndefined();
    const trace = response.result as TraceAnswer;
    expect(trace).toMatchObject({
      traceId,
      sessionKey: 'default:rpc-client:trace',
      agentId: 'default',
      endReason: 'completed_with_tool_errors',
      truncated: false,
      totals: { inputTokens: 100, outputTokens: 12, modelCalls: 2, toolCalls: 2, toolFailures: 1 },
    });
    expect(trace.spans.map((span) => [span.kind, span.name, span.outcome])).toEqual([
      ['model', 'fake/fake-model', 'tool-calls'],
      ['tool', 'current_time', 'ok'],
      ['tool', 'current_time', 'error'],
      ['model', 'fake/fake-model', 'stop'],
    ]);
    expect(trace.spanCount).toBe(4);
    for (const span of trace.spans) {
      expect(span.durationMs).toEqual(expect.any(Number));
      expect(span.startOffsetMs).toBeGreaterThanOrEqual(0);
    }
    const offsets = trace.spans.map((span) => span.startOffsetMs);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(trace.spans[0]).toMatchObject({ model: 'fake-model', provider: 'fake', inputTokens: 40, outputTokens: 5 });
    expect(trace.spans[0]?.costUsd).toBeCloseTo((40 * 1 + 5 * 2) / 1_000_000, 12);
    expect(trace.totals.costUsd).toBeGreaterThan(0);
  });

  it("lets the owner's rpc token read its own turn, refuses another token's, and answers an unknown trace not_found", async () => {
    const own = await callRpc(harness.url, harness.tokens.rpc, 'obs.trace.get', { traceId });
    expect((own.result as TraceAnswer).traceId).toBe(traceId);
    const others = await callRpc(harness.url, harness.tokens.rpc, 'obs.trace.get', { traceId: adminTraceId });
    expect(others.error).toMatchObject({ code: -32603, data: { kind: 'forbidden' } });
    const unknown = await callRpc(harness.url, harness.tokens.admin, 'obs.trace.get', { traceId: 'no-such-trace' });
    expect(unknown.error).toMatchObject({ data: { kind: 'not_found', param: 'traceId' } });
  });
});
