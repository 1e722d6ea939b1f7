// Channels end to end over Slack (the real @slack/web-api against a fake Slack, Events API posts signed as Slack signs
// them): a message in → the agent's answer out, chunked; a 429 retried; allow-lists, caps, /new; reactions to learning;
// channel:* and diagnostic:channel_health on /api/events; GET /api/channels; the outbound queue's bound.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSse, type ReadFrame } from '../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import {
  eventCallback,
  FAKE_BOT_TOKEN,
  FAKE_SIGNING_SECRET,
  postEvent,
  startFakeSlack,
  type FakeSlack,
} from '../support/fake-slack.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const ALICE = 'UALICE';
const MALLORY = 'UMALLORY';

describe('e2e: a Slack channel connection', () => {
  let llm: FakeLlm;
  let slack: FakeSlack;
  let harness: Harness;
  let ts = 1_700_000_000;

  const slackConnection = (overrides: Record<string, unknown> = {}) => ({
    kind: 'slack' as const,
    agentId: 'helper',
    botToken: FAKE_BOT_TOKEN,
    signingSecret: FAKE_SIGNING_SECRET,
    apiBaseUrl: slack.apiBaseUrl,
    allow: { senders: [ALICE] },
    maxInboundChars: 500,
    ...overrides,
  });

  beforeAll(async () => {
    llm = await startFakeLlm();
    slack = await startFakeSlack();
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { helper: { name: 'Helper', provider: 'fake', model: 'fake-model' } },
      channels: { team: slackConnection() },
    });
    await vi.waitFor(async () => expect((await list()).find((entry) => entry.id === 'team')?.state).toBe('connected'), {
      timeout: 10_000,
      interval: 50,
    });
  });
  afterAll(async () => {
    await harness.close();
    await slack.close();
    await llm.close();
  });

  const admin = async (method: string, params?: unknown) => {
    const response = await callRpc(harness.url, harness.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return response.result as Record<string, unknown>;
  };
  type Listed = {
    id: string;
    state: string;
    received: number;
    sent: number;
    ignored: number;
    failedDeliveries: number;
  };
  const list = async () => (await admin('channels.list')).channels as Listed[];
  const statusOf = async (id: string) => (await list()).find((entry) => entry.id === id);
  const say = async (user: string, text: string, channel = 'CGENERAL', connection = 'team') => {
    ts += 1;
    const answer = await postEvent(
      `${harness.url}/channels/${connection}`,
      eventCallback({ type: 'message', channel, user, text, ts: `${ts}.000200`, channel_type: 'channel' }),
    );
    expect(answer.status).toBe(200);
    return `${ts}.000200`;
  };
  const postsTo = (channel: string) =>
    slack.calls.filter((call) => call.method === 'chat.postMessage' && call.params.channel === channel);

  it('answers a message in the chat, the reply chunked at paragraph breaks to Slack’s limit, as a channel run', async () => {
    const paragraphs = Array.from({ length: 3 }, (_, index) => `${String(index)}`.repeat(2_500));
    llm.script({ text: paragraphs.join('\n\n') });
    const before = postsTo('CCHUNK').length;
    await say(ALICE, 'Tell me a long story', 'CCHUNK');
    await vi.waitFor(() => expect(postsTo('CCHUNK').length - before).toBe(3), { timeout: 10_000, interval: 50 });
    const texts = postsTo('CCHUNK').map((call) => String(call.params.text));
    expect(texts.every((text) => text.length <= 3_900)).toBe(true);
    expect(texts.join('\n\n')).toBe(paragraphs.join('\n\n'));
    const request = llm.chatRequests().at(-1);
    expect(JSON.stringify(request?.body)).toContain('Tell me a long story');
    const runs = (await admin('run.list', { kind: 'channel' })).runs as { sessionKey: string; status: string }[];
    expect(runs.map((run) => run.sessionKey)).toContain(`default:${ALICE}:team:CCHUNK`);
    const deliveries = (await admin('obs.delivery.recent', { channelId: 'team' })).deliveries as {
      outcome: string;
      channelType: string;
    }[];
    expect(deliveries[0]).toMatchObject({ outcome: 'success', channelType: 'slack' });
  });

  it('retries a reply Slack answered 429, after its Retry-After, and delivers it', async () => {
    llm.script({ text: 'Patience pays.' });
    slack.script('chat.postMessage', { status: 429, retryAfterSeconds: 1 });
    const before = slack.calls.filter((call) => call.method === 'chat.postMessage').length;
    await say(ALICE, 'Are you there?', 'CRETRY');
    await vi.waitFor(
      () => expect(postsTo('CRETRY').map((call) => call.params.text)).toEqual(['Patience pays.', 'Patience pays.']),
      {
        timeout: 10_000,
        interval: 50,
      },
    );
    expect(slack.calls.filter((call) => call.method === 'chat.postMessage').length - before).toBe(2);
    const deliveries = (await admin('obs.delivery.recent', { channelId: 'team', limit: 1 })).deliveries as {
      outcome: string;
    }[];
    expect(deliveries[0]?.outcome).toBe('success');
  });

  it('ignores and counts a sender not on the allow-list: no turn, no answer', async () => {
    const { ignored } = (await statusOf('team')) ?? { ignored: 0 };
    const requests = llm.chatRequests().length;
    await say(MALLORY, 'let me in', 'CMALLORY');
    await vi.waitFor(async () => expect((await statusOf('team'))?.ignored).toBe(ignored + 1), {
      timeout: 5_000,
      interval: 50,
    });
    expect(llm.chatRequests().length).toBe(requests);
    expect(postsTo('CMALLORY')).toEqual([]);
  });

  it('refuses an over-cap message politely in the chat and stores nothing', async () => {
    const requests = llm.chatRequests().length;
    await say(ALICE, 'x'.repeat(501), 'CBIG');
    await vi.waitFor(() => expect(postsTo('CBIG').length).toBe(1), { timeout: 5_000, interval: 50 });
    expect(String(postsTo('CBIG')[0]?.params.text)).toContain('too long');
    expect(llm.chatRequests().length).toBe(requests);
    const sessions = (await admin('session.list', {})).sessions as { sessionKey: string }[];
    expect(sessions.map((session) => session.sessionKey)).not.toContain(`default:${ALICE}:team:CBIG`);
  });

  it('/new starts a fresh session for the chat', async () => {
    llm.script({ text: 'First.' }, { text: 'Second.' });
    await say(ALICE, 'hello', 'CNEW');
    await vi.waitFor(() => expect(postsTo('CNEW').length).toBe(1), { timeout: 10_000, interval: 50 });
    await say(ALICE, '/new', 'CNEW');
    await vi.waitFor(
      () => expect(postsTo('CNEW').map((call) => call.params.text)).toContain('New conversation started.'),
      {
        timeout: 5_000,
        interval: 50,
      },
    );
    await say(ALICE, 'again', 'CNEW');
    await vi.waitFor(() => expect(postsTo('CNEW').length).toBe(3), { timeout: 10_000, interval: 50 });
    const last = llm.chatRequests().at(-1);
    // The fresh session carries none of the first conversation.
    expect(JSON.stringify(last?.body)).not.toContain('hello');
    const runs = (await admin('run.list', { kind: 'channel' })).runs as { sessionKey: string }[];
    expect(runs.some((run) => run.sessionKey.startsWith(`default:${ALICE}:team:CNEW~new`))).toBe(true);
  });

  it('records a 👍 on a reply as a success of its turn, source reaction (obs.explain)', async () => {
    llm.script({ text: 'Glad to help.' });
    await say(ALICE, 'thanks', 'CREACT');
    await vi.waitFor(() => expect(postsTo('CREACT').length).toBe(1), { timeout: 10_000, interval: 50 });
    const replyTs = (postsTo('CREACT')[0]?.answer as { ts?: string } | undefined)?.ts ?? '';
    const answer = await postEvent(
      `${harness.url}/channels/team`,
      eventCallback({
        type: 'reaction_added',
        user: ALICE,
        reaction: '+1',
        item: { type: 'message', channel: 'CREACT', ts: replyTs },
      }),
    );
    expect(answer.status).toBe(200);
    await vi.waitFor(
      async () =>
        expect((await admin('obs.explain', { sessionKey: `default:${ALICE}:team:CREACT` })).learning).toMatchObject({
          outcome: 'success',
          sources: expect.arrayContaining(['reaction']),
        }),
      { timeout: 10_000, interval: 100 },
    );
  });

  it('lists the connections on GET /api/channels beside the gateway’s surfaces', async () => {
    const response = await fetch(`${harness.url}/api/channels`, {
      headers: { authorization: `Bearer ${harness.tokens.admin}` },
    });
    expect(response.status).toBe(200);
    const { channels } = (await response.json()) as { channels: Record<string, unknown>[] };
    expect(channels.map((entry) => entry.channelId)).toEqual(expect.arrayContaining(['rpc', 'rest', 'openai', 'team']));
    expect(channels.find((entry) => entry.channelId === 'team')).toMatchObject({
      channelType: 'slack',
      agentId: 'helper',
      enabled: true,
      status: 'connected',
      lastActiveAt: expect.any(Number),
    });
  });

  it('connects and disconnects a connection added and removed by config.patch, on /api/events', async () => {
    const events = await openSse(`${harness.url}/api/events?token=${harness.tokens.admin}`);
    try {
      await events.next();
      await admin('config.patch', { channels: { ops: slackConnection() } });
      const about = (frame: ReadFrame) => JSON.parse(frame.data ?? '{}') as { channelId?: string };
      const named = (name: string) => (frame: ReadFrame) => frame.event === name && about(frame).channelId === 'ops';
      const added = await events.until(named('channel:registered'), 10_000);
      await admin('config.patch', { channels: { ops: null } });
      const removed = await events.until(named('channel:deregistered'), 10_000);
      const seen = [...added, ...removed].filter((frame) => about(frame).channelId === 'ops');
      expect(seen.map((frame) => [frame.event, JSON.parse(frame.data ?? '{}')])).toEqual(
        expect.arrayContaining([
          ['channel:registered', expect.objectContaining({ channelType: 'slack' })],
          ['diagnostic:channel_health', expect.objectContaining({ status: 'connected' })],
          ['diagnostic:channel_health', expect.objectContaining({ status: 'disconnected' })],
          ['channel:deregistered', expect.objectContaining({ channelId: 'ops' })],
        ]),
      );
      expect(await statusOf('ops')).toBeUndefined();
      // The mount is gone with the connection: its endpoint answers as an unknown route does.
      expect((await postEvent(`${harness.url}/channels/ops`, eventCallback({ type: 'message' }))).status).toBe(404);
    } finally {
      events.close();
    }
  });

  it('drops the oldest undelivered reply past outboundQueueMax, recorded as a failed delivery', async () => {
    await admin('config.patch', { channels: { queue: slackConnection({ outboundQueueMax: 1 }) } });
    await vi.waitFor(async () => expect((await statusOf('queue'))?.state).toBe('connected'), {
      timeout: 10_000,
      interval: 50,
    });
    slack.script('chat.postMessage', { status: 429, retryAfterSeconds: 120 });
    const first = callRpc(harness.url, harness.tokens.admin, 'channels.send', {
      id: 'queue',
      chatId: 'CQ',
      text: 'one',
    });
    await vi.waitFor(
      () =>
        expect(
          slack.calls.filter((call) => call.method === 'chat.postMessage' && call.params.text === 'one').length,
        ).toBe(1),
      {
        timeout: 5_000,
        interval: 20,
      },
    );
    const second = await admin('channels.send', { id: 'queue', chatId: 'CQ', text: 'two' });
    expect(second).toMatchObject({ delivered: true });
    expect((await first).result).toMatchObject({ delivered: false, error: 'dropped' });
    expect((await statusOf('queue'))?.failedDeliveries).toBe(1);
    const deliveries = (await admin('obs.delivery.recent', { channelId: 'queue' })).deliveries as {
      outcome: string;
      errorKind: string | null;
    }[];
    expect(deliveries).toEqual(
      expect.arrayContaining([expect.objectContaining({ outcome: 'failure', errorKind: 'queue_overflow' })]),
    );
  });
});
