// GET /api/events (SSE of bus events), GET /api/activity, GET /api/agents and GET /api/channels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from '../openai/route-fixture.js';
import { openSse } from './sse-reader.js';

describe('REST events, activity, agents and channels', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;

  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({
      llmBaseUrl: llm.baseUrl,
      keepAliveMs: 100,
      agents: {
        default: { name: 'Assistant', provider: 'local', model: 'small' },
        bare: { name: 'Bare model', model: 'large' },
        unset: { name: 'No model' },
      },
    });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });

  const get = async (path: string, token: string = fx.tokens.rpc) => {
    const response = await fetch(`${fx.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('/api/events advertises retry: 3000 first, then sends each bus event by name with its payload and ts', async () => {
    // config:patched is the gateway's, not a session's: only an admin token sees it.
    const stream = await openSse(`${fx.url}/api/events`, { authorization: `Bearer ${fx.tokens.admin}` });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).toBe('no-cache');
    expect(await stream.next()).toMatchObject({ retry: 3000 });
    fx.events.emit('config:patched', { sections: ['agents'], sha: 'abc123' });
    const frames = await stream.until((frame) => frame.event === 'config:patched');
    const payload = JSON.parse(frames.at(-1)?.data ?? '{}') as Record<string, unknown>;
    expect(payload).toMatchObject({ sections: ['agents'], sha: 'abc123' });
    expect(typeof payload.ts).toBe('number');
    stream.close();
  });

  it('/api/events pings with a comment while the bus is quiet', async () => {
    const stream = await openSse(`${fx.url}/api/events?token=${fx.tokens.rpc}`);
    expect(stream.status).toBe(200);
    const frames = await stream.until((frame) => frame.comments.includes('ping'), 2000);
    expect(frames.at(-1)?.comments).toEqual(['ping']);
    stream.close();
  });

  it('/api/events sends the events of a chat turn as they happen', async () => {
    const stream = await openSse(`${fx.url}/api/events`, { authorization: `Bearer ${fx.tokens.admin}` });
    await stream.next();
    await fetch(`${fx.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.tokens.admin}`, 'content-type': 'application/json' },
      body: '{"message":"hi"}',
    });
    const frames = await stream.until((frame) => frame.event === 'message:sent');
    const names = frames.map((frame) => frame.event).filter((name) => name !== undefined);
    expect(names).toEqual(expect.arrayContaining(['message:received', 'message:sent']));
    expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toMatchObject({
      sessionKey: 'default:admin:rest',
      finishReason: 'stop',
    });
    stream.close();
  });

  it('/api/events accepts ?token=, refuses mcp-client with 403 and no token with 401', async () => {
    const byQuery = await openSse(`${fx.url}/api/events?token=${fx.tokens.admin}`);
    expect(byQuery.status).toBe(200);
    byQuery.close();
    const mcpHeader = await openSse(`${fx.url}/api/events`, { authorization: `Bearer ${fx.tokens.mcpClient}` });
    expect(mcpHeader.status).toBe(403);
    expect(await mcpHeader.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect((await openSse(`${fx.url}/api/events?token=${fx.tokens.mcpClient}`)).status).toBe(403);
    const anonymous = await openSse(`${fx.url}/api/events`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('/api/activity returns recent bus events newest first, limit 1-100 default 50', async () => {
    for (let index = 0; index < 60; index += 1)
      fx.events.emit('skill:executed', { agentId: 'default', skill: `s${index}` });
    // Skill events are the gateway's, not a session's: only an admin token sees them.
    const all = await get('/api/activity', fx.tokens.admin);
    const events = all.body.events as { name: string; ts: number; payload: { skill?: string } }[];
    expect(events).toHaveLength(50);
    expect(events[0]).toMatchObject({ name: 'skill:executed', payload: { skill: 's59' } });
    expect(typeof events[0]?.ts).toBe('number');
    const three = await get('/api/activity?limit=3', fx.tokens.admin);
    expect((three.body.events as { payload: { skill: string } }[]).map((event) => event.payload.skill)).toEqual([
      's59',
      's58',
      's57',
    ]);
    expect(
      ((await get('/api/activity?limit=100', fx.tokens.admin)).body.events as unknown[]).length,
    ).toBeGreaterThanOrEqual(60);
    for (const bad of ['0', '101', 'abc', '2.5'])
      expect((await get(`/api/activity?limit=${bad}`)).body).toMatchObject({ error: { code: 'invalid_params' } });
    expect((await get('/api/activity', fx.tokens.mcpClient)).status).toBe(403);
  });

  it('/api/agents lists id, name, provider, model and status', async () => {
    expect(await get('/api/agents')).toEqual({
      status: 200,
      body: {
        agents: [
          { id: 'default', name: 'Assistant', provider: 'local', model: 'small', status: 'active' },
          { id: 'bare', name: 'Bare model', provider: 'local', model: 'large', status: 'active' },
          { id: 'unset', name: 'No model', provider: null, model: null, status: 'active' },
        ],
      },
    });
    expect((await get('/api/agents', fx.tokens.api)).status).toBe(403);
    expect((await fetch(`${fx.url}/api/agents`)).status).toBe(401);
  });

  it('/api/channels lists the gateway surfaces with live message counts', async () => {
    await fetch(`${fx.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.tokens.api}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const { status, body } = await get('/api/channels');
    expect(status).toBe(200);
    const channels = body.channels as {
      channelId: string;
      channelType: string;
      messagesReceived: number;
      messagesSent: number;
      lastActiveAt: number | null;
    }[];
    expect(channels.slice(0, 3).map((channel) => [channel.channelId, channel.channelType])).toEqual([
      ['rpc', 'jsonrpc'],
      ['rest', 'rest'],
      ['openai', 'openai'],
    ]);
    expect(channels.find((channel) => channel.channelId === 'rpc')).toMatchObject({
      enabled: true,
      status: 'listening',
      connections: 0,
    });
    const openai = channels.find((channel) => channel.channelId === 'openai');
    expect(openai?.messagesReceived).toBeGreaterThanOrEqual(1);
    expect(openai?.messagesSent).toBeGreaterThanOrEqual(1);
    expect(typeof openai?.lastActiveAt).toBe('number');
    expect((await get('/api/channels', fx.tokens.mcpClient)).status).toBe(403);
  });
});
