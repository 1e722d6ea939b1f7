// The /v1 error envelope over raw HTTP: validation naming the param, 401/403/404/429 types, and the kind table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_KINDS, GatewayError } from '../../../src/errors.js';
import { OPENAI_ERRORS, openAiErrorBody } from '../../../src/http/openai/index.js';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from './route-fixture.js';

interface ErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: null };
}

describe('openai error table', () => {
  it('maps every error kind, with the spec type for 400, 401, 403, 404, 429, 500 and server_error otherwise', () => {
    const byStatus: Record<number, string> = {
      400: 'invalid_request_error',
      401: 'authentication_error',
      403: 'permission_error',
      404: 'not_found_error',
      429: 'rate_limit_error',
      500: 'server_error',
    };
    for (const kind of ERROR_KINDS) {
      const { status, type } = OPENAI_ERRORS[kind];
      // A spent budget is OpenAI's own 429 type for a spent quota (DESIGN §3 "budgets at the limit").
      if (kind === 'budget_exceeded') expect(type, kind).toBe('insufficient_quota');
      else expect(type, kind).toBe(byStatus[status] ?? 'server_error');
    }
    expect(OPENAI_ERRORS.budget_exceeded).toEqual({ status: 429, type: 'insufficient_quota' });
    expect(OPENAI_ERRORS.upstream_failed).toEqual({ status: 502, type: 'server_error' });
    expect(OPENAI_ERRORS.unavailable).toEqual({ status: 503, type: 'server_error' });
  });

  it('builds {message, type, param, code: null} and hides the message of internal errors', () => {
    expect(openAiErrorBody(new GatewayError('invalid_params', 'bad temperature', { param: 'temperature' }))).toEqual({
      error: { message: 'bad temperature', type: 'invalid_request_error', param: 'temperature', code: null },
    });
    expect(openAiErrorBody(new GatewayError('internal', 'db password is hunter2'))).toEqual({
      error: { message: 'Internal error', type: 'server_error', param: null, code: null },
    });
  });

  it("adds upstream_status to an upstream failure: a failed turn's upstreamStatus, or a routed call's statusCode", () => {
    expect(
      openAiErrorBody(
        new GatewayError('upstream_failed', 'Model call to a/b failed: server (HTTP 500): boom', {
          upstreamStatus: 500,
        }),
      ),
    ).toEqual({
      error: {
        message: 'Model call to a/b failed: server (HTTP 500): boom',
        type: 'server_error',
        param: null,
        code: null,
        upstream_status: 500,
      },
    });
    expect(
      openAiErrorBody(new GatewayError('upstream_failed', 'Embedding call failed', { statusCode: 503 })).error
        .upstream_status,
    ).toBe(503);
    expect(
      openAiErrorBody(new GatewayError('upstream_failed', 'Model call to a/b failed: network: ECONNREFUSED')).error,
    ).not.toHaveProperty('upstream_status');
    expect(openAiErrorBody(new GatewayError('unavailable', 'down', { statusCode: 503 })).error).not.toHaveProperty(
      'upstream_status',
    );
  });
});

describe('/v1 errors over HTTP', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;

  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({ llmBaseUrl: llm.baseUrl });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });

  async function post(
    path: string,
    body: unknown,
    token: string | null = fx.tokens.api,
    contentType = 'application/json',
  ) {
    const response = await fetch(`${fx.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType, ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as ErrorEnvelope };
  }

  const chat = (extra: Record<string, unknown>) =>
    post('/v1/chat/completions', { model: 'local/small', messages: [{ role: 'user', content: 'hi' }], ...extra });

  it('refuses an unknown field with 400 naming it', async () => {
    expect(await chat({ prediction: { type: 'content', content: 'draft' } })).toMatchObject({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          param: 'prediction',
          message: 'Unrecognized request argument supplied: prediction',
          code: null,
        },
      },
    });
    const nested = await post('/v1/chat/completions', {
      model: 'local/small',
      messages: [{ role: 'user', content: 'hi', audio: { id: 'a' } }],
    });
    expect(nested).toMatchObject({ status: 400, body: { error: { param: 'messages[0].audio' } } });
  });

  it('names a missing or invalid field', async () => {
    expect(await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }] })).toMatchObject({
      status: 400,
      body: {
        error: { type: 'invalid_request_error', param: 'model', message: "Missing required parameter: 'model'" },
      },
    });
    expect(await chat({ messages: [] })).toMatchObject({ status: 400, body: { error: { param: 'messages' } } });
    expect(await chat({ model: '' })).toMatchObject({ status: 400, body: { error: { param: 'model' } } });
    expect(await chat({ messages: [{ role: 'robot', content: 'x' }] })).toMatchObject({
      status: 400,
      body: { error: { param: 'messages[0].role' } },
    });
    expect(await chat({ messages: [{ role: 'tool', content: 'x' }] })).toMatchObject({
      status: 400,
      body: { error: { param: 'messages[0].tool_call_id' } },
    });
    expect(await chat({ stream: 'yes' })).toMatchObject({ status: 400, body: { error: { param: 'stream' } } });
  });

  it('answers 400 when no message is from the user', async () => {
    const response = await chat({
      messages: [
        { role: 'system', content: 'be nice' },
        { role: 'assistant', content: 'hello' },
      ],
    });
    expect(response).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error', param: 'messages' } },
    });
    expect(response.body.error.message).toMatch(/user message/);
  });

  it('refuses an image_url block, naming vision input as unsupported', async () => {
    const response = await chat({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ],
    });
    expect(response).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error', param: 'messages[0].content[1]' } },
    });
    expect(response.body.error.message).toMatch(/vision input.*not supported on this endpoint/i);
  });

  it('checks temperature (0 to 2) and max_tokens (a positive integer)', async () => {
    expect(await chat({ temperature: 3 })).toMatchObject({
      status: 400,
      body: { error: { param: 'temperature', type: 'invalid_request_error' } },
    });
    expect(await chat({ temperature: -0.1 })).toMatchObject({ status: 400, body: { error: { param: 'temperature' } } });
    expect(await chat({ max_tokens: 0 })).toMatchObject({
      status: 400,
      body: { error: { param: 'max_tokens', type: 'invalid_request_error' } },
    });
    expect(await chat({ max_tokens: 1.5 })).toMatchObject({ status: 400, body: { error: { param: 'max_tokens' } } });
    expect((await chat({ temperature: 2, max_tokens: 1 })).status).toBe(200);
  });

  it('answers 404 not_found_error for an unknown model', async () => {
    expect(await chat({ model: 'nowhere/nothing' })).toMatchObject({
      status: 404,
      body: {
        error: { type: 'not_found_error', message: 'Model not found: nowhere/nothing', param: 'model', code: null },
      },
    });
    expect(await chat({ model: 'ghost' })).toMatchObject({
      status: 404,
      body: { error: { message: 'Model not found: ghost' } },
    });
  });

  it('answers 400 for a body that is not JSON, and reads JSON sent with another content type', async () => {
    expect(await post('/v1/chat/completions', '{"model": ', fx.tokens.api)).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error' } },
    });
    expect(await post('/v1/chat/completions', '[]')).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error', param: null } },
    });
    const form = await post(
      '/v1/chat/completions',
      { model: 'local/small', messages: [{ role: 'user', content: 'hi' }] },
      fx.tokens.api,
      'application/x-www-form-urlencoded',
    );
    expect(form.status).toBe(200);
  });

  it('answers 401 authentication_error without a valid token', async () => {
    const anonymous = await post('/v1/chat/completions', {}, null);
    expect(anonymous).toMatchObject({
      status: 401,
      body: { error: { type: 'authentication_error', param: null, code: null } },
    });
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(await post('/v1/chat/completions', {}, 'not-a-real-token-0123456789abcdefghijkl')).toMatchObject({
      status: 401,
      body: { error: { type: 'authentication_error' } },
    });
    const models = await fetch(`${fx.url}/v1/models`);
    expect(models.status).toBe(401);
    expect(await models.json()).toMatchObject({ error: { type: 'authentication_error' } });
  });

  it('answers 403 permission_error to a token without rpc or api scope, and serves rpc, api and * tokens', async () => {
    expect(await post('/v1/chat/completions', {}, fx.tokens.mcpClient)).toMatchObject({
      status: 403,
      body: { error: { type: 'permission_error', code: null } },
    });
    expect(await post('/v1/embeddings', {}, fx.tokens.adminOnly)).toMatchObject({
      status: 403,
      body: { error: { type: 'permission_error' } },
    });
    for (const token of [fx.tokens.api, fx.tokens.rpc, fx.tokens.admin]) {
      expect((await fetch(`${fx.url}/v1/models`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    }
  });

  it('answers unknown /v1 routes with a 404 in the OpenAI envelope', async () => {
    const response = await fetch(`${fx.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.tokens.api}` },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { type: 'not_found_error', param: null, code: null } });
  });

  it('keeps the HTTP status of a body over the limit, typed server_error (the spec fallback)', async () => {
    const huge = { model: 'local/small', messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] };
    expect(await chat(huge)).toMatchObject({ status: 413, body: { error: { type: 'server_error', code: null } } });
  });
});

describe('/v1 rate limit', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;
  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({ llmBaseUrl: llm.baseUrl, rateLimit: { maxRequests: 2, windowMs: 60_000 } });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });

  it('answers 429 rate_limit_error in the OpenAI envelope and keeps Retry-After', async () => {
    const list = () => fetch(`${fx.url}/v1/models`, { headers: { authorization: `Bearer ${fx.tokens.api}` } });
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    const refused = await list();
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(await refused.json()).toEqual({
      error: {
        message: 'Rate limit exceeded: 2 requests per 60000 ms',
        type: 'rate_limit_error',
        param: null,
        code: null,
      },
    });
  });
});
