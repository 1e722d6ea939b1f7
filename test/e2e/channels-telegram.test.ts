// Channels end to end over Telegram (grammy's long polling against a fake Bot API): a reply chunked to 4096 with the
// typing indicator shown, a 👍 on it recorded for learning, a 429 retried after retry_after, a voice note transcribed
// by pocketsphinx and given to the agent, a sender not on the allow-list ignored, and a webhook-mode connection's route.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PHRASE, speak } from '../audio/speech-fixtures.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const TOKEN = '123456:test-token';
const ALICE = 77;

describe('e2e: a Telegram channel connection', () => {
  let llm: FakeLlm;
  let telegram: FakeTelegram;
  let harness: Harness;
  let messageId = 100;

  beforeAll(async () => {
    llm = await startFakeLlm();
    telegram = await startFakeTelegram({ token: TOKEN });
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { helper: { name: 'Helper', provider: 'fake', model: 'fake-model' } },
      channels: {
        tg: {
          kind: 'telegram',
          agentId: 'helper',
          token: TOKEN,
          apiBaseUrl: telegram.apiRoot,
          allow: { senders: ['77'] },
        },
        hook: {
          kind: 'telegram',
          agentId: 'helper',
          token: TOKEN,
          apiBaseUrl: telegram.apiRoot,
          mode: 'webhook',
          webhookSecret: 'hook-secret',
          // Its chats' sessions live in tenant acme: the connection's own caller is given that tenant.
          tenantId: 'acme',
          allow: { senders: ['*'] },
        },
      },
    });
  });
  afterAll(async () => {
    await harness.close();
    await telegram.close();
    await llm.close();
  });

  const admin = async (method: string, params?: unknown) => {
    const response = await callRpc(harness.url, harness.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return response.result as Record<string, unknown>;
  };
  const message = (chatId: number, from: number, extra: Record<string, unknown>) => {
    messageId += 1;
    telegram.pushUpdate({
      message: {
        message_id: messageId,
        date: 1_790_000_000,
        chat: { id: chatId, type: 'private', first_name: 'Alice' },
        from: { id: from, is_bot: false, first_name: 'Alice' },
        ...extra,
      },
    });
  };
  const sentTo = (chatId: number) =>
    telegram.calls.filter((call) => call.method === 'sendMessage' && String(call.params.chat_id) === String(chatId));

  it('answers in the chat with typing shown; a 👍 on the reply is recorded as its turn’s success (obs.explain)', async () => {
    llm.script({ text: 'Hello from the agent.' });
    message(ALICE, ALICE, { text: 'hi there' });
    const reply = await telegram.waitForCall('sendMessage', (call) => String(call.params.chat_id) === '77');
    expect(reply.params.text).toBe('Hello from the agent.');
    expect(telegram.calls.some((call) => call.method === 'sendChatAction' && call.params.action === 'typing')).toBe(
      true,
    );
    // The fake numbers sent messages from 5000: this reply is the first.
    telegram.pushUpdate({
      message_reaction: {
        chat: { id: ALICE, type: 'private' },
        message_id: 5000,
        user: { id: ALICE, is_bot: false, first_name: 'Alice' },
        date: 1_790_000_000,
        old_reaction: [],
        new_reaction: [{ type: 'emoji', emoji: '👍' }],
      },
    });
    await vi.waitFor(
      async () =>
        expect((await admin('obs.explain', { sessionKey: 'default:77:tg:77' })).learning).toMatchObject({
          outcome: 'success',
          sources: expect.arrayContaining(['reaction']),
        }),
      { timeout: 10_000, interval: 100 },
    );
  });

  it('chunks a long reply to 4096 characters and retries a 429 after retry_after', async () => {
    const lines = Array.from({ length: 3 }, (_, index) => String(index).repeat(3_000));
    llm.script({ text: lines.join('\n') });
    telegram.failNext('sendMessage', { status: 429, retryAfter: 1 });
    message(78, ALICE, { text: 'a long one please' });
    await vi.waitFor(() => expect(sentTo(78).length).toBe(4), { timeout: 15_000, interval: 50 });
    // The first attempt was refused with 429 and sent again; then the other two chunks.
    const texts = sentTo(78).map((call) => String(call.params.text));
    expect(texts).toEqual([lines[0], lines[0], lines[1], lines[2]]);
    expect(texts.every((text) => text.length <= 4_096)).toBe(true);
    const { deliveries } = (await admin('obs.delivery.recent', { channelId: 'tg', limit: 1 })) as {
      deliveries: { outcome: string; channelType: string }[];
    };
    expect(deliveries[0]).toMatchObject({ outcome: 'success', channelType: 'telegram' });
  });

  it('transcribes a voice note (pocketsphinx) and gives the agent the transcript, noted as a voice message', async () => {
    const spoken = await speak(PHRASE);
    telegram.addFile('voice-1', 'voice/file_1.oga', spoken.opus);
    llm.script({ text: 'Heard you.' });
    message(79, ALICE, {
      voice: {
        file_id: 'voice-1',
        file_unique_id: 'v1',
        duration: 2,
        mime_type: 'audio/ogg',
        file_size: spoken.opus.length,
      },
    });
    await vi.waitFor(() => expect(sentTo(79).map((call) => call.params.text)).toEqual(['Heard you.']), {
      timeout: 60_000,
      interval: 100,
    });
    const asked = JSON.stringify(llm.chatRequests().at(-1)?.body);
    expect(asked).toContain('[Voice message, transcribed]');
    expect(asked).toMatch(/president/);
  }, 90_000);

  it('ignores a sender who is not on the allow-list and counts it', async () => {
    const requests = llm.chatRequests().length;
    message(80, 999, { text: 'hello?' });
    await vi.waitFor(
      async () => {
        const { channels } = (await admin('channels.list')) as { channels: { id: string; ignored: number }[] };
        expect(channels.find((entry) => entry.id === 'tg')?.ignored).toBe(1);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(sentTo(80)).toEqual([]);
    expect(llm.chatRequests().length).toBe(requests);
  });

  it('mounts a webhook-mode connection’s endpoint under /channels/<id>/: the secret is checked, an update answered', async () => {
    const post = (secret: string, body: unknown) =>
      fetch(`${harness.url}/channels/hook/telegram`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret },
        body: JSON.stringify(body),
      });
    const refused = await post('wrong', { update_id: 1 });
    expect(refused.status).toBe(401);
    llm.script({ text: 'Webhook reply.' });
    const update = {
      update_id: 2,
      message: {
        message_id: 1,
        date: 1,
        chat: { id: 81, type: 'private' },
        from: { id: 81, is_bot: false, first_name: 'B' },
        text: 'via hook',
      },
    };
    expect((await post('hook-secret', update)).status).toBe(200);
    await vi.waitFor(() => expect(sentTo(81).map((call) => call.params.text)).toEqual(['Webhook reply.']), {
      timeout: 10_000,
      interval: 50,
    });
    const sessions = (await admin('session.list', { limit: 500 })) as { sessions: { sessionKey: string }[] };
    expect(sessions.sessions.map((session) => session.sessionKey)).toContain('acme:81:hook:81');
    expect((await fetch(`${harness.url}/channels/nosuch/telegram`, { method: 'POST' })).status).toBe(404);
  });
});
