// Issue 31: an upstream failure says what failed. The provider's own message (secrets masked, capped) and HTTP status
// reach the openai SDK's error, agent.execute, POST /api/chat and obs.explain (a failures[] entry and the root cause);
// when a fallback chain fails, each model's cause is named.
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const SECRET_KEY = 'sk-live-0123456789abcdefghijklmnopqrstuv';
const BEARER = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXBhcnQ';

interface Reply {
  response: string;
  finishReason: string;
  error?: string;
  errorKind?: string;
  upstreamStatus?: number;
}

describe('upstream failures keep their cause', () => {
  let llm: FakeLlm;
  let harness: Harness;
  let client: OpenAI;

  const rpc = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
    const answer = await callRpc(harness.url, harness.tokens.admin, method, params);
    if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
  const execute = async (peerId: string, agentId = 'default') =>
    (await rpc('agent.execute', {
      message: 'Hello',
      agentId,
      sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'test', peerId },
    })) as Reply;

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['mock-model'] });
    harness = await startGateway({
      providers: {
        mock: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'mock-model' }] },
        backup: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'backup-model' }] },
      },
      agents: {
        default: { name: 'Assistant', provider: 'mock', model: 'mock-model' },
        chained: { name: 'Chained', provider: 'mock', model: 'mock-model', fallbackModels: ['backup/backup-model'] },
      },
    });
    client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: harness.tokens.api, maxRetries: 0 });
  }, 30_000);
  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });
  beforeEach(async () => {
    llm.reset();
    // One answered call closes the count of consecutive failures, so the breaker (3 in a row) stays shut between tests.
    await client.chat.completions.create({
      model: 'mock/mock-model',
      messages: [{ role: 'user', content: 'warm up' }],
    });
    llm.reset();
  });

  it('gives the openai SDK the upstream message and status, not just "server"', async () => {
    llm.script({ status: 500, errorMessage: 'upstream exploded' });
    const error = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(error).toBeInstanceOf(APIError);
    const apiError = error as APIError;
    expect(apiError.status).toBe(502);
    expect(apiError.message).toContain('mock/mock-model');
    expect(apiError.message).toContain('HTTP 500');
    expect(apiError.message).toContain('upstream exploded');
    expect(apiError.error).toMatchObject({ type: 'server_error', code: null, upstream_status: 500 });
  });

  it('raises the upstream message from a stream that fails before its first token', async () => {
    llm.script({ status: 500, errorMessage: 'upstream exploded' });
    const stream = await client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const error = await (async () => {
      try {
        for await (const chunk of stream) void chunk;
        return undefined;
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain('HTTP 500');
    expect((error as APIError).message).toContain('upstream exploded');
    expect((error as APIError).error).toMatchObject({ upstream_status: 500 });
  });

  it('puts the upstream message and status in agent.execute and POST /api/chat answers', async () => {
    llm.script({ status: 500, errorMessage: 'upstream exploded' });
    const reply = await execute('rpc-failure');
    expect(reply).toMatchObject({
      response: '',
      finishReason: 'error',
      errorKind: 'upstream_failed',
      upstreamStatus: 500,
    });
    expect(reply.error).toContain('mock/mock-model');
    expect(reply.error).toContain('HTTP 500');
    expect(reply.error).toContain('upstream exploded');

    llm.script({ status: 500, errorMessage: 'upstream exploded' });
    const response = await fetch(`${harness.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${harness.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Hello' }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Reply;
    expect(body).toMatchObject({ finishReason: 'error', errorKind: 'upstream_failed', upstreamStatus: 500 });
    expect(body.error).toContain('HTTP 500');
    expect(body.error).toContain('upstream exploded');
  });

  it('explains the failed turn with a model failure entry and a root cause naming the status and message', async () => {
    llm.script({ status: 500, errorMessage: 'upstream exploded' });
    await execute('explained');
    const report = (await rpc('obs.explain', { sessionKey: 'default:alice:test:explained' })) as IncidentReport;
    expect(report.outcome).toMatchObject({ endReason: 'error', degraded: true, severity: 'error' });
    expect(report.failures).toEqual([
      expect.objectContaining({
        toolName: 'mock/mock-model',
        errorKind: 'server',
        provider: 'mock',
        model: 'mock-model',
        status: 500,
        message: 'upstream exploded',
        step: 1,
      }),
    ]);
    expect(report.failures[0]?.errorPreview).toContain('upstream exploded');
    expect(report.likelyRootCause.code).toBe('upstream_failed');
    expect(report.likelyRootCause.detail).toContain('500');
    expect(report.likelyRootCause.detail).toContain('upstream exploded');
    expect(report.summary).not.toContain('Likely cause: error.');
  });

  it('masks secret-looking strings in the upstream message on every surface and in the report', async () => {
    const message = `upstream exploded: key ${SECRET_KEY} refused (Authorization: Bearer ${BEARER})`;
    llm.script({ status: 500, errorMessage: message }, { status: 500, errorMessage: message });
    const sdkError = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => undefined,
        (thrown: unknown) => thrown as APIError,
      );
    const reply = await execute('secret');
    const report = await rpc('obs.explain', { sessionKey: 'default:alice:test:secret' });
    for (const text of [sdkError?.message ?? '', reply.error ?? '', JSON.stringify(report)]) {
      expect(text).toContain('upstream exploded');
      expect(text).not.toContain(SECRET_KEY);
      expect(text).not.toContain('0123456789abcdefghijklmnop');
      expect(text).not.toContain(BEARER);
      expect(text).not.toContain('c2lnbmF0dXJlLXBhcnQ');
    }
  });

  it('caps a long upstream message at 500 characters', async () => {
    llm.script({ status: 500, errorMessage: `upstream exploded ${'x'.repeat(5_000)}` });
    const reply = await execute('long');
    const [, upstream = ''] = (reply.error ?? '').split('HTTP 500): ');
    expect(upstream.startsWith('upstream exploded')).toBe(true);
    expect(upstream.length).toBeLessThanOrEqual(501);
  });

  it('names each model of a failed fallback chain with its own cause', async () => {
    llm.script(
      { status: 500, errorMessage: 'primary exploded' },
      { status: 503, errorMessage: 'backup is overloaded' },
    );
    const reply = await execute('chain', 'chained');
    expect(reply).toMatchObject({ finishReason: 'error', errorKind: 'upstream_failed', upstreamStatus: 503 });
    expect(reply.error).toContain('mock/mock-model');
    expect(reply.error).toContain('primary exploded');
    expect(reply.error).toContain('backup/backup-model');
    expect(reply.error).toContain('backup is overloaded');
    const report = (await rpc('obs.explain', { sessionKey: 'default:alice:test:chain' })) as IncidentReport;
    // Newest first: the backup failed last.
    expect(report.failures).toEqual([
      expect.objectContaining({
        provider: 'backup',
        model: 'backup-model',
        status: 503,
        message: 'backup is overloaded',
      }),
      expect.objectContaining({ provider: 'mock', model: 'mock-model', status: 500, message: 'primary exploded' }),
    ]);
    expect(report.likelyRootCause.detail).toContain('primary exploded');
    expect(report.likelyRootCause.detail).toContain('backup is overloaded');
  });
});
