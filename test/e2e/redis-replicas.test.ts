// Two gateways sharing one Redis (coordination: redis) and one database (a shared SQLite file standing in for
// PostgreSQL): limits, events, notifications, revocations and sessions behave as one service.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse } from '../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import type { Harness, HarnessOptions } from '../support/gateway-harness.js';
import { startSharedReplicas, type SharedReplicas } from '../support/shared-replicas.js';
import { connect } from '../support/ws-client.js';

const WEBHOOK_SECRET = 'webhook-secret-0123456789';
const RATE_LIMIT = 12;

const sign = (body: string) => createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');

describe('e2e: two replicas on one Redis', () => {
  let replicas: SharedReplicas;
  let llm: FakeLlm;
  let a: Harness;
  let b: Harness;

  beforeAll(async () => {
    [replicas, llm] = await Promise.all([startSharedReplicas(), startFakeLlm()]);
    const options: HarnessOptions = {
      gateway: { rateLimit: { windowMs: 60_000, maxRequests: RATE_LIMIT }, webhook: { secret: WEBHOOK_SECRET } },
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    };
    a = await replicas.start(options);
    b = await replicas.start(options);
  });
  afterAll(async () => {
    await replicas?.close();
    await llm?.close();
  });

  const rpc = (gateway: Harness, method: string, params: unknown, token = gateway.tokens.admin) =>
    fetch(`${gateway.url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as { result?: Record<string, unknown>; error?: unknown },
    }));
  /** Matches the first `message:sent` after a `message:received`, so a turn's own answer ends a read. */
  const sentAfterReceived = () => {
    let isReceived = false;
    return (frame: { event?: string }) => {
      if (frame.event === 'message:received') isReceived = true;
      return isReceived && frame.event === 'message:sent';
    };
  };
  const chat = (gateway: Harness, message: string) =>
    fetch(`${gateway.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.tokens.rpc}` },
      body: JSON.stringify({ message }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { response?: string } }));

  it('lets gateway.rateLimit.maxRequests through across both replicas together, then answers 429 on each', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < RATE_LIMIT; index += 1) {
      const gateway = index % 2 === 0 ? a : b;
      statuses.push(
        (await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${gateway.tokens.api}` } }))
          .status,
      );
    }
    expect(statuses).toEqual(Array.from({ length: RATE_LIMIT }, () => 200));
    for (const gateway of [a, b]) {
      const refused = await fetch(`${gateway.url}/v1/models`, {
        headers: { authorization: `Bearer ${gateway.tokens.api}` },
      });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('continues on B a session started on A', async () => {
    llm.script({ text: 'Nice to meet you, Ada.' }, { text: 'You are Ada.' });
    expect((await chat(a, 'My name is Ada.')).body.response).toBe('Nice to meet you, Ada.');
    expect((await chat(b, 'What is my name?')).body.response).toBe('You are Ada.');
    const sent = llm.chatRequests().at(-1)?.body as { messages: { role: string; content: string }[] };
    expect(sent.messages.map((message) => message.content)).toEqual(
      expect.arrayContaining(['My name is Ada.', 'Nice to meet you, Ada.', 'What is my name?']),
    );
  });

  it('runs the turns of one session one at a time across replicas: B waits for the turn A holds', async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    llm.script({ text: 'Held answer from A.', heldUntil: held }, { text: 'Answer from B.' });
    const before = llm.chatRequests().length;
    const onA = chat(a, 'question to A');
    while (llm.chatRequests().length === before) await new Promise((resolve) => setTimeout(resolve, 10));
    const onB = chat(b, 'question to B');
    // Time for B's request to arrive and, were there no shared lock, reach the model.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(llm.chatRequests()).toHaveLength(before + 1);
    // Once A's turn ends, B's turn runs and its model call sees A's whole exchange.
    release();
    expect((await onA).body.response).toBe('Held answer from A.');
    expect((await onB).body.response).toBe('Answer from B.');
    const sent = llm.chatRequests().at(-1)?.body as { messages: { content: string }[] };
    expect(sent.messages.map((message) => message.content)).toEqual(
      expect.arrayContaining(['question to A', 'Held answer from A.', 'question to B']),
    );
  });

  it("shows an /api/events subscriber on B a turn run on A, and replays on A what B's client missed", async () => {
    const onB = await openSse(`${b.url}/api/events?token=${b.tokens.admin}`);
    llm.script({ text: 'First answer.' });
    await chat(a, 'first question');
    // The earlier tests' turns may still be reaching B's feed: this turn's answer is the one sent after its question.
    const seen = await onB.until(sentAfterReceived());
    expect(seen.map((frame) => frame.event)).toContain('message:received');
    const lastSeen = seen.at(-1)?.id;
    expect(lastSeen).toBeDefined();
    onB.close();

    llm.script({ text: 'Second answer.' });
    await chat(a, 'second question');
    const resumed = await openSse(`${a.url}/api/events`, {
      authorization: `Bearer ${a.tokens.admin}`,
      'last-event-id': lastSeen ?? '',
    });
    const missed = await resumed.until(sentAfterReceived());
    resumed.close();
    const events = missed.filter((frame) => frame.id !== undefined);
    expect(events.map((frame) => frame.event)).toContain('message:received');
    expect(events.map((frame) => frame.id)).not.toContain(lastSeen);
    expect(events.find((frame) => frame.event === 'message:sent')?.data).toContain('"finishReason":"stop"');
  });

  it('delivers session.completed of a webhook received on A to the admin socket held by B', async () => {
    const socket = connect(b.wsUrl, { token: b.tokens.admin });
    const rpcSocket = connect(b.wsUrl, { token: b.tokens.rpc });
    await Promise.all([socket.opened, rpcSocket.opened]);
    llm.script({ text: 'Handled on A.' });
    const body = JSON.stringify({ event: 'deploy.finished', source: 'ci', data: { build: 7 } });
    const response = await fetch(`${a.url}/hooks/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': `sha256=${sign(body)}` },
      body,
    });
    expect(response.status).toBe(202);
    const { runId } = (await response.json()) as { runId: string };
    const done = await socket.waitFor((frame) => frame.method === 'session.completed', 5000);
    expect(done.params).toMatchObject({ runId, result: { response: 'Handled on A.', finishReason: 'stop' } });
    // No token owns a webhook session: B's rpc socket got nothing (the answer to a call made now is its only frame).
    const answer = await rpcSocket.call('system.ping');
    expect(rpcSocket.received).toEqual([answer]);
    await Promise.all([socket.close(), rpcSocket.close()]);
  });

  it('refuses on B a token revoked on A, and closes its socket on B within a second', async () => {
    const created = await rpc(a, 'tokens.create', { id: 'ci-bot', scopes: ['rpc'] });
    const secret = created.body.result?.secret;
    if (typeof secret !== 'string') throw new Error(`tokens.create answered ${JSON.stringify(created.body)}`);
    const socket = connect(b.wsUrl, { token: secret });
    await socket.opened;
    const listed = await socket.call('session.history');
    expect(listed, JSON.stringify(listed)).toHaveProperty('result');

    expect((await rpc(a, 'tokens.revoke', { id: 'ci-bot' })).body.result).toEqual({ id: 'ci-bot', revoked: true });
    // Without the broadcast B would notice only at its next token re-check (every 5 s).
    const closed = await Promise.race([
      socket.closed,
      new Promise<undefined>((resolve) => setTimeout(resolve, 1000, undefined)),
    ]);
    expect(closed).toEqual({ code: 4001, reason: 'Token revoked' });
    expect((await rpc(b, 'session.history', {}, secret)).status).toBe(401);
  });
});
