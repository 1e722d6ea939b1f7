// GET /api/chat/stream numbers its frames, ends with done, and answers a reconnect (Last-Event-ID) with 204, running no turn.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from '../openai/route-fixture.js';
import { openSse } from './sse-reader.js';

describe('REST chat stream ids and reconnects', () => {
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
  beforeEach(() => {
    llm.reset();
  });

  const historyLength = async () => {
    const response = await fetch(`${fx.url}/api/chat/history`, {
      headers: { authorization: `Bearer ${fx.tokens.rpc}` },
    });
    return ((await response.json()) as { messages: unknown[] }).messages.length;
  };

  it('gives every token frame and the final done frame an id of its own, and then ends', async () => {
    llm.script({ deltas: ['a', 'b', 'c'] });
    const stream = await openSse(`${fx.url}/api/chat/stream?message=ids&token=${fx.tokens.rpc}`);
    const frames = (await stream.until((frame) => frame.event === 'done')).filter((frame) => frame.event !== undefined);
    expect(frames.map((frame) => frame.event)).toEqual(['token', 'token', 'token', 'done']);
    const ids = frames.map((frame) => frame.id);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(4);
    expect(await stream.next()).toBeUndefined();
  });

  it('answers a reconnect carrying the last id with 204 and an empty body, without running the turn again', async () => {
    llm.script({ deltas: ['once'] });
    const stream = await openSse(`${fx.url}/api/chat/stream?message=only-once&token=${fx.tokens.rpc}`);
    const lastId = (await stream.until((frame) => frame.event === 'done')).at(-1)?.id ?? '';
    expect(llm.chatRequests()).toHaveLength(1);
    const before = await historyLength();

    // EventSource reconnects to the same URL and adds the id of the last frame it saw.
    const reconnect = await fetch(`${fx.url}/api/chat/stream?message=only-once&token=${fx.tokens.rpc}`, {
      headers: { 'last-event-id': lastId },
    });
    expect(reconnect.status).toBe(204);
    expect(await reconnect.text()).toBe('');
    expect(llm.chatRequests()).toHaveLength(1);
    expect(await historyLength()).toBe(before);
  });

  it('also stops a reconnect whose stream it no longer knows (expired, or from before a restart)', async () => {
    for (const id of ['0123456789ab-1z.4', 'anything']) {
      const reconnect = await fetch(`${fx.url}/api/chat/stream?message=again&token=${fx.tokens.rpc}`, {
        headers: { 'last-event-id': id },
      });
      expect(reconnect.status, id).toBe(204);
    }
    expect(llm.chatRequests()).toHaveLength(0);
  });

  it('still wants a valid token before it answers a reconnect', async () => {
    const reconnect = await fetch(`${fx.url}/api/chat/stream?message=again`, { headers: { 'last-event-id': 'x.1' } });
    expect(reconnect.status).toBe(401);
  });
});
