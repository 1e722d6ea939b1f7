// POST /api/chat, GET /api/chat/stream (SSE token/done) and GET /api/chat/history over the real turn loop.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from '../openai/route-fixture.js';
import { openSse } from './sse-reader.js';

describe('REST chat', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;

  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({
      llmBaseUrl: llm.baseUrl,
      agents: {
        default: { name: 'Assistant', provider: 'local', model: 'small', maxSteps: 3 },
        writer: { name: 'Writer', provider: 'local', model: 'large', maxSteps: 3 },
      },
    });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
  });

  const lastMessages = () =>
    ((llm.chatRequests().at(-1)?.body ?? {}) as { messages?: { role: string; content: unknown }[] }).messages ?? [];

  async function postChat(body: unknown, token: string = fx.tokens.rpc) {
    const response = await fetch(`${fx.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('runs one turn of the default agent in the caller session default:<clientId>:rest', async () => {
    llm.script({ text: 'Hello back', usage: { inputTokens: 10, outputTokens: 2 } });
    expect(await postChat({ message: 'hello' })).toEqual({
      status: 200,
      body: {
        response: 'Hello back',
        tokensUsed: { input: 10, output: 2, total: 12 },
        finishReason: 'stop',
        sessionKey: 'default:rpc-client:rest',
      },
    });
    llm.script({ text: 'Second answer' });
    await postChat({ message: 'and again' });
    expect(lastMessages().slice(1)).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Hello back' },
      { role: 'user', content: 'and again' },
    ]);
  });

  it('runs the named agent, in the given session key', async () => {
    const { body } = await postChat({ message: 'hi', agentId: 'writer', sessionKey: 'default:team:rest:room-1' });
    expect(body).toMatchObject({ sessionKey: 'default:team:rest:room-1', finishReason: 'stop' });
    expect((llm.chatRequests().at(-1)?.body as { model?: string }).model).toBe('large');
  });

  it('refuses bad bodies, unknown agents and malformed session keys in the REST envelope', async () => {
    expect(await postChat({})).toMatchObject({ status: 400, body: { error: { code: 'invalid_params' } } });
    expect(await postChat({ message: 'hi', extra: true })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_params', message: "Invalid params: unknown field 'extra'" } },
    });
    expect(await postChat({ message: 'hi', agentId: 'ghost' })).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
    expect(await postChat({ message: 'hi', sessionKey: 'only-one-part' })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_params' } },
    });
  });

  it('reports a failed turn with its finish reason and the cause', async () => {
    llm.script({ status: 400, errorMessage: 'upstream says no' });
    const { status, body } = await postChat({ message: 'fail please' }, fx.tokens.admin);
    expect(status).toBe(200);
    expect(body).toMatchObject({ response: '', finishReason: 'error' });
    expect(typeof body.error).toBe('string');
  });

  it('needs a token with rpc scope', async () => {
    expect(
      (
        await fetch(`${fx.url}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"message":"x"}',
        })
      ).status,
    ).toBe(401);
    expect(await postChat({ message: 'x' }, fx.tokens.mcpClient)).toMatchObject({
      status: 403,
      body: { error: { code: 'forbidden' } },
    });
    expect((await postChat({ message: 'x' }, fx.tokens.api)).status).toBe(403);
  });

  it('streams token events with delta and accumulated text, then one done event', async () => {
    llm.script({ deltas: ['Hel', 'lo', '!'], usage: { inputTokens: 5, outputTokens: 3 } });
    const stream = await openSse(`${fx.url}/api/chat/stream?message=${encodeURIComponent('say hello')}`, {
      authorization: `Bearer ${fx.tokens.rpc}`,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await stream.until((frame) => frame.event === 'done');
    const tokens = frames
      .filter((frame) => frame.event === 'token')
      .map((frame) => JSON.parse(frame.data ?? '{}') as unknown);
    expect(tokens).toEqual([
      { delta: 'Hel', accumulated: 'Hel' },
      { delta: 'lo', accumulated: 'Hello' },
      { delta: '!', accumulated: 'Hello!' },
    ]);
    expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toEqual({
      response: 'Hello!',
      tokensUsed: { input: 5, output: 3, total: 8 },
      finishReason: 'stop',
      sessionKey: 'default:rpc-client:rest',
    });
    expect(await stream.next()).toBeUndefined();
  });

  it('accepts the token as a query parameter and an agentId', async () => {
    const stream = await openSse(`${fx.url}/api/chat/stream?message=hi&agentId=writer&token=${fx.tokens.admin}`);
    const frames = await stream.until((frame) => frame.event === 'done');
    expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toMatchObject({
      response: 'Echo: hi',
      finishReason: 'stop',
      sessionKey: 'default:admin:rest',
    });
    expect((llm.chatRequests().at(-1)?.body as { model?: string }).model).toBe('large');
  });

  it('refuses mcp-client tokens with 403, by header or query, and a missing message with 400', async () => {
    const byHeader = await openSse(`${fx.url}/api/chat/stream?message=hi`, {
      authorization: `Bearer ${fx.tokens.mcpClient}`,
    });
    expect(byHeader.status).toBe(403);
    expect(await byHeader.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect((await openSse(`${fx.url}/api/chat/stream?message=hi&token=${fx.tokens.mcpClient}`)).status).toBe(403);
    expect((await openSse(`${fx.url}/api/chat/stream?message=hi`)).status).toBe(401);
    expect((await openSse(`${fx.url}/api/chat/stream`, { authorization: `Bearer ${fx.tokens.rpc}` })).status).toBe(400);
    expect(
      (
        await openSse(`${fx.url}/api/chat/stream?message=hi&agentId=ghost`, {
          authorization: `Bearer ${fx.tokens.rpc}`,
        })
      ).status,
    ).toBe(404);
  });

  it('returns the caller history of its REST session, and of another channel on request', async () => {
    const token = fx.tokens.adminOnly;
    const fresh = await fetch(`${fx.url}/api/chat/history`, {
      headers: { authorization: `Bearer ${fx.tokens.admin}` },
    });
    expect(fresh.status).toBe(200);
    await postChat({ message: 'history one' }, fx.tokens.admin);
    await postChat({ message: 'elsewhere', sessionKey: 'default:admin:telegram' }, fx.tokens.admin);
    const history = (await (
      await fetch(`${fx.url}/api/chat/history`, { headers: { authorization: `Bearer ${fx.tokens.admin}` } })
    ).json()) as { channelId: string; messages: { role: string; content: string; sessionKey: string }[] };
    expect(history.channelId).toBe('rest');
    expect(history.messages.map((message) => [message.role, message.content]).slice(-2)).toEqual([
      ['user', 'history one'],
      ['assistant', 'Echo: history one'],
    ]);
    expect(history.messages.every((message) => message.sessionKey === 'default:admin:rest')).toBe(true);
    const telegram = (await (
      await fetch(`${fx.url}/api/chat/history?channelId=telegram`, {
        headers: { authorization: `Bearer ${fx.tokens.admin}` },
      })
    ).json()) as { messages: { content: string }[] };
    expect(telegram.messages.map((message) => message.content)).toEqual(['elsewhere', 'Echo: elsewhere']);
    const other = (await (
      await fetch(`${fx.url}/api/chat/history`, { headers: { authorization: `Bearer ${fx.tokens.rpc}` } })
    ).json()) as { messages: { content: string }[] };
    expect(other.messages.some((message) => message.content === 'history one')).toBe(false);
    expect((await fetch(`${fx.url}/api/chat/history`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      403,
    );
    expect(
      (
        await fetch(`${fx.url}/api/chat/history?channelId=a:b`, {
          headers: { authorization: `Bearer ${fx.tokens.admin}` },
        })
      ).status,
    ).toBe(400);
  });
});
