// Who sees which events: /api/events (live and replayed) and /api/activity show a token only its own sessions' and
// jobs' events, an admin all; a webhook's session.completed reaches admin sockets only.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type ReadFrame } from '../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { connectOpen, type TestSocket } from '../support/ws-client.js';

const OTHER = 'other-secret-0123456789abcdefghijklmnopq';
const WEBHOOK_SECRET = 'webhook-secret-0123456789';
const MINE = 'default:rpc-client:rest';
const THEIRS = 'default:other:rest';

describe('event visibility per token', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      gateway: { webhook: { secret: WEBHOOK_SECRET, agentId: 'default' }, wsHeartbeatMs: 0 },
      extraTokens: [{ id: 'other', secret: OTHER, scopes: ['rpc'] }],
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
    });
  });
  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close()));
    await gateway.close();
    await llm.close();
  });

  const chat = async (token: string, message: string) => {
    const response = await fetch(`${gateway.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    });
    expect(response.status).toBe(200);
  };
  const payloadOf = (frame: ReadFrame) => JSON.parse(frame.data ?? '{}') as Record<string, unknown>;
  const sentBy = (sessionKey: string) => (frame: ReadFrame) =>
    frame.event === 'message:sent' && payloadOf(frame).sessionKey === sessionKey;
  /** Every session key and owner an event frame names. */
  const namedIn = (frames: ReadFrame[]) =>
    frames
      .filter((frame) => frame.event !== undefined)
      .map((frame) => [frame.event, payloadOf(frame).sessionKey ?? payloadOf(frame).ownerId]);

  it("streams to a token only its own sessions' and jobs' events, live and replayed; an admin gets every event", async () => {
    const mine = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.rpc}`);
    const all = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.admin}`);
    await mine.next();
    await all.next();
    await chat(OTHER, 'their secret plans');
    gateway.app.events.emit('scheduler:job_started', {
      jobId: 'j1',
      jobName: 'theirs',
      agentId: 'default',
      runId: 'r1',
      ownerId: 'other',
    });
    gateway.app.events.emit('config:patched', { sections: ['agents'], sha: 'abc' });
    gateway.app.events.emit('scheduler:job_started', {
      jobId: 'j2',
      jobName: 'mine',
      agentId: 'default',
      runId: 'r2',
      ownerId: 'rpc-client',
    });
    await chat(gateway.tokens.rpc, 'my question');

    const seen = await mine.until(sentBy(MINE));
    expect(namedIn(seen).every(([, subject]) => subject === MINE || subject === 'rpc-client')).toBe(true);
    expect(namedIn(seen)).toEqual(
      expect.arrayContaining([
        ['message:received', MINE],
        ['scheduler:job_started', 'rpc-client'],
        ['message:sent', MINE],
      ]),
    );
    const everything = await all.until(sentBy(MINE));
    expect(namedIn(everything)).toEqual(
      expect.arrayContaining([
        ['message:sent', THEIRS],
        ['scheduler:job_started', 'other'],
        ['config:patched', undefined],
        ['message:sent', MINE],
      ]),
    );
    all.close();

    // A reconnect with the id of the first frame it saw replays only what it may see.
    const firstId = seen.find((frame) => frame.id !== undefined)?.id ?? '';
    mine.close();
    await chat(OTHER, 'more of their plans');
    await chat(gateway.tokens.rpc, 'my follow-up');
    const resumed = await openSse(`${gateway.url}/api/events`, {
      authorization: `Bearer ${gateway.tokens.rpc}`,
      'last-event-id': firstId,
    });
    const replayed = await resumed.until((frame) => sentBy(MINE)(frame) && Number(frame.id) > Number(seen.at(-1)?.id));
    resumed.close();
    expect(namedIn(replayed).length).toBeGreaterThan(2);
    expect(namedIn(replayed).every(([, subject]) => subject === MINE || subject === 'rpc-client')).toBe(true);
  });

  it("lists on /api/activity only the caller's own sessions' and jobs' events; an admin's list has every one", async () => {
    await chat(OTHER, 'activity of theirs');
    await chat(gateway.tokens.rpc, 'activity of mine');
    const activity = async (token: string) => {
      const response = await fetch(`${gateway.url}/api/activity?limit=100`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return ((await response.json()) as { events: { name: string; payload: Record<string, unknown> }[] }).events;
    };
    const subjects = (events: { name: string; payload: Record<string, unknown> }[]) =>
      events.map((event) => event.payload.sessionKey ?? event.payload.ownerId ?? event.name);
    const mine = subjects(await activity(gateway.tokens.rpc));
    expect(mine).toContain(MINE);
    expect(mine).toContain('rpc-client');
    expect(mine.every((subject) => subject === MINE || subject === 'rpc-client')).toBe(true);
    const every = subjects(await activity(gateway.tokens.admin));
    expect(every).toEqual(expect.arrayContaining([MINE, THEIRS, 'other', 'config:patched']));
  });

  it("sends a webhook's session.completed to admin sockets only", async () => {
    const admin = await connectOpen(gateway.wsUrl, { token: gateway.tokens.admin });
    const rpc = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc });
    sockets.push(admin, rpc);
    llm.script({ text: 'Handled the deploy.' });
    const body = JSON.stringify({ event: 'deploy.finished', source: 'ci', data: { build: 42 } });
    const signature = createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');
    const accepted = await fetch(`${gateway.url}/hooks/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
      body,
    });
    expect(accepted.status).toBe(202);
    const { sessionKey } = (await accepted.json()) as { sessionKey: string };
    const done = await admin.waitFor((frame) => frame.method === 'session.completed');
    expect(done.params).toMatchObject({ sessionKey, result: { response: 'Handled the deploy.' } });
    // The rpc socket got nothing: the answer to a call made now is its only frame.
    const answer = await rpc.call('system.ping');
    expect(rpc.received).toEqual([answer]);
  });
});
