// GET /metrics after real traffic through a started gateway and the fake LLM: counters moved by exactly the traffic,
// GenAI names, tool calls, gauges, label values capped, and the observability:metrics snapshot on /api/events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { histogramOf, labelValues, parsePrometheus, valueOf } from '../support/prometheus-text.js';
import { openSse } from '../http/rest/sse-reader.js';

const COST = { input: 3, output: 15 };
const USAGE = { inputTokens: 11, outputTokens: 7 };

async function scrape(url: string) {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await response.text());
}

async function chat(gateway: Harness, model: string, body: Record<string, unknown> = {}) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.tokens.rpc}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  await response.text();
  return response.status;
}

describe('GET /metrics after real traffic', () => {
  let llm: FakeLlm;
  let gateway: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: {
        local: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'small', cost: COST }],
        },
      },
      agents: {
        default: { name: 'Assistant', provider: 'local', model: 'small' },
        clock: { name: 'Clock', provider: 'local', model: 'small', tools: ['current_time'] },
      },
      // The cardinality case sends 11,000 requests from one address.
      gateway: { rateLimit: { maxRequests: 1_000_000, windowMs: 60_000 } },
      metrics: { eventIntervalMs: 50 },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await llm?.close();
  });

  it('moves the turn, token, cost, model-call and HTTP counters by exactly three chat completions', async () => {
    const before = await scrape(gateway.url);
    for (let i = 0; i < 3; i += 1) {
      llm.script({ text: 'Hello there', chunks: 2, usage: USAGE });
      expect(await chat(gateway, 'default', { stream: i === 0 })).toBe(200);
    }
    const after = await scrape(gateway.url);
    const moved = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    const movedHistogram = (name: string, labels: Record<string, string>) => {
      const [was, is] = [histogramOf(before, name, labels), histogramOf(after, name, labels)];
      return { count: is.count - was.count, sum: is.sum - was.sum };
    };

    expect(moved('gateway_turns_total', { agent: 'default', finish_reason: 'stop' })).toBe(3);
    const model = { agent: 'default', provider: 'local', model: 'small' };
    expect(moved('gateway_tokens_total', { ...model, type: 'input' })).toBe(33);
    expect(moved('gateway_tokens_total', { ...model, type: 'output' })).toBe(21);
    expect(moved('gateway_cost_usd_total', model)).toBeCloseTo((3 * (11 * COST.input + 7 * COST.output)) / 1e6, 12);
    const genAi = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'local', gen_ai_request_model: 'small' };
    expect(movedHistogram('gen_ai_client_token_usage', { ...genAi, gen_ai_token_type: 'input' })).toEqual({
      count: 3,
      sum: 33,
    });
    expect(movedHistogram('gen_ai_client_token_usage', { ...genAi, gen_ai_token_type: 'output' })).toEqual({
      count: 3,
      sum: 21,
    });
    expect(movedHistogram('gen_ai_client_operation_duration_seconds', genAi).count).toBe(3);
    expect(movedHistogram('gen_ai_client_operation_time_to_first_chunk_seconds', genAi).count).toBe(3);
    // The route pattern, never the raw URL; the scrape before this one is counted too.
    expect(moved('gateway_http_requests_total', { method: 'POST', route: '/v1/chat/completions', status: '200' })).toBe(
      3,
    );
    expect(movedHistogram('gateway_http_request_duration_seconds', { route: '/v1/chat/completions' }).count).toBe(3);
    expect(moved('gateway_http_requests_total', { method: 'GET', route: '/metrics', status: '200' })).toBe(1);
  });

  it('labels a failed model call with its error type and counts the turn by its finish reason', async () => {
    const before = await scrape(gateway.url);
    llm.script({ status: 400, errorMessage: 'bad request' });
    expect(await chat(gateway, 'default')).toBeGreaterThanOrEqual(400);
    const after = await scrape(gateway.url);
    const failed = { gen_ai_provider_name: 'local', gen_ai_request_model: 'small', error_type: 'bad_request' };
    expect(
      histogramOf(after, 'gen_ai_client_operation_duration_seconds', failed).count -
        histogramOf(before, 'gen_ai_client_operation_duration_seconds', failed).count,
    ).toBe(1);
    expect(
      valueOf(after, 'gateway_turns_total', { agent: 'default', finish_reason: 'error' }) -
        valueOf(before, 'gateway_turns_total', { agent: 'default', finish_reason: 'error' }),
    ).toBe(1);
  });

  it('counts tool calls by tool and outcome', async () => {
    const before = await scrape(gateway.url);
    llm.script(
      { toolCalls: [{ name: 'current_time', arguments: {} }], usage: USAGE },
      { toolCalls: [{ name: 'no_such_tool', arguments: {} }], usage: USAGE },
      { text: 'It is now.', usage: USAGE },
    );
    expect(await chat(gateway, 'clock')).toBe(200);
    const after = await scrape(gateway.url);
    const moved = (labels: Record<string, string>) =>
      valueOf(after, 'gateway_tool_calls_total', labels) - valueOf(before, 'gateway_tool_calls_total', labels);
    expect(moved({ tool: 'current_time', outcome: 'ok' })).toBe(1);
    expect(moved({ tool: 'no_such_tool' })).toBe(1);
    expect(moved({ tool: 'no_such_tool', outcome: 'ok' })).toBe(0);
    expect(histogramOf(after, 'gateway_tool_call_duration_seconds', { tool: 'current_time' }).count).toBeGreaterThan(0);
    expect(valueOf(after, 'gateway_turns_total', { agent: 'clock', finish_reason: 'stop' })).toBe(1);
  });

  it('reads the gauges from the running gateway: breakers, approvals, connections and process metrics', async () => {
    const stream = await openSse(`${gateway.url}/api/events`, { authorization: `Bearer ${gateway.tokens.admin}` });
    await stream.next();
    const families = await scrape(gateway.url);
    expect(valueOf(families, 'gateway_provider_breaker_state', { provider: 'local', state: 'closed' })).toBe(1);
    expect(valueOf(families, 'gateway_provider_breaker_state', { provider: 'local', state: 'open' })).toBe(0);
    expect(valueOf(families, 'gateway_approvals_pending')).toBe(0);
    expect(valueOf(families, 'gateway_sse_subscribers')).toBe(1);
    expect(valueOf(families, 'gateway_ws_connections')).toBe(0);
    expect(valueOf(families, 'gateway_runs_running')).toBe(0);
    expect(valueOf(families, 'gateway_session_turns_waiting')).toBe(0);
    expect(valueOf(families, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(families.has('nodejs_eventloop_lag_seconds')).toBe(true);
    stream.close();
  });

  it('sends a snapshot as observability:metrics on /api/events every metrics.eventIntervalMs', async () => {
    const stream = await openSse(`${gateway.url}/api/events`, { authorization: `Bearer ${gateway.tokens.admin}` });
    await stream.next();
    const frames = await stream.until((frame) => frame.event === 'observability:metrics');
    const snapshot = JSON.parse(frames.at(-1)?.data ?? '{}') as Record<string, unknown>;
    stream.close();
    expect(snapshot).toMatchObject({
      // Three completions, one failed call, and the tool turn's three calls.
      turns: 5,
      inputTokens: 6 * USAGE.inputTokens,
      outputTokens: 6 * USAGE.outputTokens,
      costUsd: Math.round(6 * (11 * COST.input + 7 * COST.output)) / 1e6,
      modelCalls: 7,
      modelCallFailures: 1,
      toolCalls: 2,
      toolFailures: 1,
      sseSubscribers: 1,
      openBreakers: 0,
      ts: expect.any(Number),
    });
    expect(snapshot.httpRequests).toBeGreaterThan(5);
    expect(snapshot.rssBytes).toBeGreaterThan(0);
  });

  it('keeps the snapshot from a token that is not an admin', async () => {
    const rpc = await openSse(`${gateway.url}/api/events`, { authorization: `Bearer ${gateway.tokens.rpc}` });
    await rpc.next();
    const admin = await openSse(`${gateway.url}/api/events`, { authorization: `Bearer ${gateway.tokens.admin}` });
    await admin.next();
    let snapshots = 0;
    await admin.until((frame) => frame.event === 'observability:metrics' && ++snapshots === 2);
    admin.close();
    // A turn of the rpc token's own session comes after those two snapshots: its stream shows the turn, not them.
    const turn = await fetch(`${gateway.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.tokens.rpc}`, 'content-type': 'application/json' },
      body: '{"message":"hi"}',
    });
    expect(turn.status).toBe(200);
    const frames = await rpc.until((frame) => frame.event === 'message:sent');
    rpc.close();
    expect(frames.map((frame) => frame.event)).not.toContain('observability:metrics');
  });

  it('shows no label with more values than the cap after 10,000 distinct paths, models and session keys', async () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `hostile-${i}-${Math.random().toString(36).slice(2)}`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < ids.length) {
          const id = ids[next++] ?? '';
          const response = await fetch(`${gateway.url}/${id}?sessionKey=default:${id}:rest`, {
            headers: { 'x-session-key': id },
          });
          await response.text();
          if (next % 10 === 0) {
            const v1 = await fetch(`${gateway.url}/v1/chat/completions`, {
              method: 'POST',
              headers: { authorization: `Bearer ${gateway.tokens.rpc}`, 'content-type': 'application/json' },
              body: JSON.stringify({ model: id, messages: [{ role: 'user', content: 'hi' }], user: id }),
            });
            await v1.text();
          }
        }
      }),
    );
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    const families = parsePrometheus(text);
    // metrics.maxLabelValues (200) values at most, and _other.
    for (const [label, values] of labelValues(families)) expect(values.size, label).toBeLessThanOrEqual(201);
    expect(text).not.toContain('hostile-');
    expect(valueOf(families, 'gateway_http_requests_total', { route: '_unmatched', status: '404' })).toBe(10_000);
  }, 120_000);
});
