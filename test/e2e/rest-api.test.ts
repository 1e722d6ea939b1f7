// The dashboard REST API and SSE streams of a started gateway, with the fake LLM as provider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { openSse } from '../http/rest/sse-reader.js';

describe('e2e: REST and SSE', () => {
  let llm: FakeLlm;
  let gateway: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  it('lists agents and runs a chat turn', async () => {
    const headers = { authorization: `Bearer ${gateway.tokens.rpc}`, 'content-type': 'application/json' };
    expect(await (await fetch(`${gateway.url}/api/agents`, { headers })).json()).toEqual({
      agents: [{ id: 'default', name: 'Assistant', provider: 'local', model: 'small', status: 'active' }],
    });
    llm.script({ text: 'REST reply' });
    const chat = await fetch(`${gateway.url}/api/chat`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ message: 'hello' }),
    });
    expect(await chat.json()).toMatchObject({
      response: 'REST reply',
      finishReason: 'stop',
      tokensUsed: { total: expect.any(Number) },
    });
  });

  it('streams chat tokens and a done event, with the token in the query', async () => {
    llm.script({ deltas: ['a', 'b'] });
    const stream = await openSse(`${gateway.url}/api/chat/stream?message=go&token=${gateway.tokens.rpc}`);
    const frames = await stream.until((frame) => frame.event === 'done');
    expect(
      frames.filter((frame) => frame.event === 'token').map((frame) => JSON.parse(frame.data ?? '{}') as unknown),
    ).toEqual([
      { delta: 'a', accumulated: 'a' },
      { delta: 'b', accumulated: 'ab' },
    ]);
    expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toMatchObject({ response: 'ab', finishReason: 'stop' });
  });

  it('streams bus events after retry: 3000 on /api/events', async () => {
    // provider:degraded is the gateway's, not a session's: only an admin token sees it.
    const stream = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.admin}`);
    expect(await stream.next()).toMatchObject({ retry: 3000 });
    gateway.app.events.emit('provider:degraded', { provider: 'local', failures: 1 });
    const frames = await stream.until((frame) => frame.event === 'provider:degraded');
    expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toMatchObject({ provider: 'local', ts: expect.any(Number) });
    stream.close();
  });

  it('refuses mcp-client tokens on both SSE routes with 403', async () => {
    for (const path of ['/api/events', '/api/chat/stream?message=hi']) {
      const byHeader = await openSse(`${gateway.url}${path}`, { authorization: `Bearer ${gateway.tokens.mcpClient}` });
      expect(byHeader.status, path).toBe(403);
      const separator = path.includes('?') ? '&' : '?';
      expect((await openSse(`${gateway.url}${path}${separator}token=${gateway.tokens.mcpClient}`)).status, path).toBe(
        403,
      );
    }
  });
});
