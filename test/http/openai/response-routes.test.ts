// GET and DELETE /v1/responses/:id over HTTP: the stored object exactly as answered, ownership, deletion, retention.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from './route-fixture.js';

const DAY_MS = 86_400_000;

describe('GET and DELETE /v1/responses/:id', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;
  let client: OpenAI;
  // The fixture's clock: tests move it forward to age responses past responses.ttlDays.
  let clockOffsetMs = 0;

  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({
      llmBaseUrl: llm.baseUrl,
      now: () => Date.now() + clockOffsetMs,
      responseSweepIntervalMs: 20,
    });
    client = new OpenAI({ baseURL: `${fx.url}/v1`, apiKey: fx.tokens.api, maxRetries: 0 });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
    clockOffsetMs = 0;
    fx.settings.responseTtlDays = 30;
  });

  const call = async (
    method: 'GET' | 'DELETE' | 'POST',
    path: string,
    token: string = fx.tokens.api,
    body?: unknown,
  ) => {
    const response = await fetch(`${fx.url}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };
  /** The data of the last SSE frame of a /v1/responses stream. */
  const lastFrameData = (text: string): string => text.trim().split('\n').at(-1)?.slice('data: '.length) ?? '';

  it('answers the stored object byte for byte as POST answered it', async () => {
    llm.script({ text: 'Stored answer', usage: { inputTokens: 5, outputTokens: 2 } });
    const created = await call('POST', '/responses', fx.tokens.api, {
      model: 'local/small',
      input: 'keep this',
      metadata: { k: 'v' },
    });
    expect(created.status).toBe(200);
    const id = (JSON.parse(created.text) as { id: string }).id;
    const read = await call('GET', `/responses/${id}`);
    expect(read).toEqual({ status: 200, type: 'application/json; charset=utf-8', text: created.text });
  });

  it('answers the object of response.completed for a streamed response, and of response.failed for a failed stream', async () => {
    llm.script({ deltas: ['Str', 'eamed'] });
    const streamed = await call('POST', '/responses', fx.tokens.api, {
      model: 'local/small',
      input: 'stream it',
      stream: true,
    });
    const completed = JSON.parse(lastFrameData(streamed.text)) as {
      type: string;
      response: { id: string; status: string };
    };
    expect(completed).toMatchObject({ type: 'response.completed', response: { status: 'completed' } });
    const read = await call('GET', `/responses/${completed.response.id}`);
    expect(read.status).toBe(200);
    expect(JSON.parse(read.text)).toEqual(completed.response);
    expect(read.text).toBe(JSON.stringify(completed.response));

    llm.script({ deltas: ['partial ', 'more'], dropAfterChunks: 1 });
    const broken = await call('POST', '/responses', fx.tokens.api, {
      model: 'local/small',
      input: 'fail it',
      stream: true,
    });
    const failed = JSON.parse(lastFrameData(broken.text)) as { type: string; response: { id: string } };
    expect(failed).toMatchObject({
      type: 'response.failed',
      response: { status: 'failed', error: { code: 'server_error' } },
    });
    expect(JSON.parse((await call('GET', `/responses/${failed.response.id}`)).text)).toEqual(failed.response);
  });

  it('answers 404 in the OpenAI envelope for an unknown id and 400 for a query parameter it does not honour', async () => {
    const unknown = await call('GET', '/responses/resp_nope');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toEqual({
      error: { message: 'Response not found: resp_nope', type: 'not_found_error', param: null, code: null },
    });
    const deleted = await call('DELETE', '/responses/resp_nope');
    expect(deleted.status).toBe(404);
    const created = await client.responses.create({ model: 'local/small', input: 'x' });
    const streamed = await call('GET', `/responses/${created.id}?stream=true`);
    expect(streamed.status).toBe(400);
    expect(JSON.parse(streamed.text)).toMatchObject({ error: { param: 'stream', type: 'invalid_request_error' } });
  });

  it("answers 403 permission_error to another client's token, as previous_response_id does, and lets an admin read and delete", async () => {
    const mine = await client.responses.create({ model: 'local/small', input: 'private' });
    for (const method of ['GET', 'DELETE'] as const) {
      const theirs = await call(method, `/responses/${mine.id}`, fx.tokens.rpc);
      expect(theirs.status, method).toBe(403);
      expect(JSON.parse(theirs.text), method).toEqual({
        error: {
          message: `Response ${mine.id} belongs to another client`,
          type: 'permission_error',
          param: null,
          code: null,
        },
      });
    }
    expect((await call('GET', `/responses/${mine.id}`, fx.tokens.admin)).status).toBe(200);
    expect(JSON.parse((await call('DELETE', `/responses/${mine.id}`, fx.tokens.admin)).text)).toEqual({
      id: mine.id,
      object: 'response',
      deleted: true,
    });
    expect((await call('GET', `/responses/${mine.id}`)).status).toBe(404);
  });

  it("deletes with OpenAI's shape; afterwards GET, DELETE and previous_response_id answer 404", async () => {
    const created = await client.responses.create({ model: 'local/small', input: 'to delete' });
    const deleted = await call('DELETE', `/responses/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(JSON.parse(deleted.text)).toEqual({ id: created.id, object: 'response', deleted: true });
    expect((await call('GET', `/responses/${created.id}`)).status).toBe(404);
    expect((await call('DELETE', `/responses/${created.id}`)).status).toBe(404);
    const calls = llm.chatRequests().length;
    const continued = await call('POST', '/responses', fx.tokens.api, {
      model: 'local/small',
      input: 'again',
      previous_response_id: created.id,
    });
    expect(continued.status).toBe(404);
    expect(JSON.parse(continued.text)).toMatchObject({
      error: { type: 'not_found_error', param: 'previous_response_id' },
    });
    expect(llm.chatRequests()).toHaveLength(calls);
  });

  it('answers 404 for a response older than responses.ttlDays, read live from the config, and the sweep purges its row', async () => {
    const old = await client.responses.create({ model: 'local/small', input: 'old' });
    clockOffsetMs = 2 * DAY_MS;
    const recent = await client.responses.create({ model: 'local/small', input: 'recent' });
    expect((await call('GET', `/responses/${old.id}`)).status).toBe(200);
    fx.settings.responseTtlDays = 1;
    expect((await call('GET', `/responses/${old.id}`)).status).toBe(404);
    expect((await call('DELETE', `/responses/${old.id}`)).status).toBe(404);
    const continued = await call('POST', '/responses', fx.tokens.api, {
      model: 'local/small',
      input: 'again',
      previous_response_id: old.id,
    });
    expect(continued.status).toBe(404);
    const rowCount = (id: string) =>
      fx.db.prepare('SELECT COUNT(*) FROM openai_responses WHERE response_id = ?').pluck().get(id);
    await vi.waitFor(() => expect(rowCount(old.id)).toBe(0), { timeout: 5000, interval: 20 });
    expect(rowCount(recent.id)).toBe(1);
    expect((await call('GET', `/responses/${recent.id}`)).status).toBe(200);
  });

  it('purges a backlog larger than one purge batch', async () => {
    const insert = fx.db.prepare(
      'INSERT INTO openai_responses (response_id, session_key, client_id, created_at, body) VALUES (?, ?, ?, ?, ?)',
    );
    const createdAt = Date.now() - 31 * DAY_MS;
    fx.db.transaction(() => {
      for (let index = 0; index < 1_234; index += 1)
        insert.run(`resp_backlog_${index}`, 'default:openai-api:openai:backlog', 'api-client', createdAt, '{}');
    })();
    const backlog = () =>
      fx.db.prepare("SELECT COUNT(*) FROM openai_responses WHERE response_id LIKE 'resp_backlog_%'").pluck().get();
    await vi.waitFor(() => expect(backlog()).toBe(0), { timeout: 5000, interval: 20 });
  });
});
