import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';

let llm: FakeLlm;
let receiver: OtlpReceiver;
beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await llm.close();
  await receiver.close();
});

const harnesses: Harness[] = [];
afterEach(async () => {
  llm.reset();
  receiver.spans.length = 0;
  receiver.requests.length = 0;
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

async function gatewayWith(otel: HarnessOptions['otel']): Promise<Harness> {
  const harness = await startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
      },
    },
    agents: {
      default: { name: 'Assistant', provider: 'fake', model: 'fake-model', tools: ['current_time'] },
    },
    ...(otel === undefined ? {} : { otel }),
  });
  harnesses.push(harness);
  return harness;
}

/** agent.execute over real HTTP, with extra request headers (a traceparent). */
async function execute(harness: Harness, message: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${harness.url}/rpc`, {
    method: 'POST',
    headers: { authorization: `Bearer ${harness.tokens.admin}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'agent.execute',
      params: { message, sessionKey: { tenantId: 'default', userId: 'u', channelId: 'test', peerId: 'p' } },
    }),
  });
  const body = (await response.json()) as { result?: { response: string }; error?: unknown };
  if (body.result === undefined) throw new Error(`agent.execute failed: ${JSON.stringify(body.error)}`);
  return { result: body.result, requestId: response.headers.get('x-request-id') };
}

/** Closing the gateway exports the spans still batched: the receiver then has all of them. */
async function closeAndCollect(harness: Harness): Promise<ReceivedSpan[]> {
  await harness.close();
  return receiver.spans;
}

const named = (spans: ReceivedSpan[], prefix: string) => spans.filter((span) => span.name.startsWith(prefix));

describe('OpenTelemetry traces over OTLP/HTTP', () => {
  it('exports invoke_agent with chat, execute_tool and chat under it, with the GenAI attributes and no content', async () => {
    const harness = await gatewayWith({ endpoint: receiver.url, serviceName: 'gw-test' });
    llm.script(
      { toolCalls: [{ name: 'current_time', arguments: {} }], usage: { inputTokens: 40, outputTokens: 7 } },
      { text: 'It is now.', usage: { inputTokens: 60, outputTokens: 4 } },
    );
    const { result, requestId } = await execute(harness, 'What time is it? secret-words');
    expect(result.response).toBe('It is now.');
    const spans = await closeAndCollect(harness);

    const [turn] = named(spans, 'invoke_agent');
    expect(turn).toMatchObject({ name: 'invoke_agent default', kind: 1, parentSpanId: '', serviceName: 'gw-test' });
    // The gateway's trace id (x-request-id) is the OTel trace id.
    expect(turn?.traceId).toBe(requestId);
    const chats = named(spans, 'chat ');
    const tools = named(spans, 'execute_tool');
    expect(chats).toHaveLength(2);
    expect(tools).toHaveLength(1);
    for (const child of [...chats, ...tools]) {
      expect(child.traceId).toBe(turn?.traceId);
      expect(child.parentSpanId).toBe(turn?.spanId);
    }
    expect(chats[0]).toMatchObject({
      name: 'chat fake-model',
      kind: 3,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai-compatible',
        'gen_ai.request.model': 'fake-model',
        'gen_ai.response.model': 'fake-model',
        'gen_ai.usage.input_tokens': 40,
        'gen_ai.usage.output_tokens': 7,
        'gen_ai.response.finish_reasons': ['tool_calls'],
      },
    });
    const toolCallId = (
      llm.chatRequests()[1]?.body as { messages: { role: string; tool_call_id?: string }[] }
    ).messages.find((message) => message.role === 'tool')?.tool_call_id;
    expect(tools[0]).toMatchObject({
      name: 'execute_tool current_time',
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'current_time',
        'gen_ai.tool.call.id': toolCallId,
      },
    });
    const exported = JSON.stringify(spans);
    expect(exported).not.toContain('secret-words');
    expect(exported).not.toContain('It is now.');
    expect(exported).not.toContain('gen_ai.input.messages');
  });

  it('records message content only with captureContent', async () => {
    const harness = await gatewayWith({ endpoint: receiver.url, captureContent: true });
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'It is now.' });
    await execute(harness, 'What time is it? secret-words');
    const spans = await closeAndCollect(harness);
    const [first, second] = named(spans, 'chat ');
    expect(String(first?.attributes['gen_ai.input.messages'])).toContain('secret-words');
    expect(String(second?.attributes['gen_ai.output.messages'])).toContain('It is now.');
    expect(named(spans, 'execute_tool')[0]?.attributes).toHaveProperty('gen_ai.tool.call.result');
  });

  it("joins the caller's traceparent and sends the chat span's traceparent to the provider", async () => {
    const harness = await gatewayWith({ endpoint: receiver.url });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    llm.script({ text: 'Hi.' });
    const { requestId } = await execute(harness, 'Hello', { traceparent: `00-${traceId}-${callerSpan}-01` });
    expect(requestId).toBe(traceId);
    const upstream = llm.chatRequests()[0]?.headers.traceparent;
    expect(upstream).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const spans = await closeAndCollect(harness);
    const [turn] = named(spans, 'invoke_agent');
    const [chat] = named(spans, 'chat ');
    expect(turn).toMatchObject({ traceId, parentSpanId: callerSpan });
    expect(chat).toMatchObject({ traceId, parentSpanId: turn?.spanId });
    expect(upstream).toBe(`00-${traceId}-${chat?.spanId}-01`);
  });

  it('ignores an invalid traceparent: a new trace, no error', async () => {
    const harness = await gatewayWith({ endpoint: receiver.url });
    llm.script({ text: 'Hi.' });
    const { result, requestId } = await execute(harness, 'Hello', {
      traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    });
    expect(result.response).toBe('Hi.');
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(requestId).not.toBe('00000000000000000000000000000000');
    const spans = await closeAndCollect(harness);
    expect(named(spans, 'invoke_agent')[0]).toMatchObject({ traceId: requestId, parentSpanId: '' });
  });

  it('off (no endpoint): no export attempts and no traceparent upstream', async () => {
    const harness = await gatewayWith(undefined);
    llm.script({ text: 'Hi.' });
    const { requestId } = await execute(harness, 'Hello');
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(llm.chatRequests()[0]?.headers).not.toHaveProperty('traceparent');
    await harness.close();
    expect(receiver.requests).toEqual([]);
  });
});
