// Two gateways sharing one Redis and one database, each with the same Telegram connection in polling mode: one replica
// pulls the updates at a time (the other stands by, connected, and sends), so a message is answered once; when the
// pulling replica stops, the other takes over.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import type { Harness, HarnessOptions } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { startSharedReplicas, type SharedReplicas } from '../support/shared-replicas.js';

const TOKEN = '123456:test-token';
const ALICE = 77;
/** Short, so the take-over happens within the test: a stopped holder releases at once, and B looks every second. */
const LEASE_TTL_MS = 3_000;

describe('e2e: a polling channel on two replicas', () => {
  let replicas: SharedReplicas;
  let llm: FakeLlm;
  let telegram: FakeTelegram;
  let a: Harness | undefined;
  let b: Harness;
  let messageId = 100;

  beforeAll(async () => {
    [replicas, llm, telegram] = await Promise.all([
      startSharedReplicas(),
      startFakeLlm(),
      startFakeTelegram({ token: TOKEN }),
    ]);
    const options: HarnessOptions = {
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
      },
    };
    a = await replicas.start(options, { channelLeaseTtlMs: LEASE_TTL_MS });
    // A pulls before B exists, so A holds the connection's inbound lease.
    await telegram.waitForWaitingPoll();
    b = await replicas.start(options, { channelLeaseTtlMs: LEASE_TTL_MS });
  }, 60_000);
  afterAll(async () => {
    await replicas?.close();
    await telegram?.close();
    await llm?.close();
  });

  const message = (text: string) => {
    messageId += 1;
    telegram.pushUpdate({
      message: {
        message_id: messageId,
        date: 1_790_000_000,
        chat: { id: ALICE, type: 'private', first_name: 'Alice' },
        from: { id: ALICE, is_bot: false, first_name: 'Alice' },
        text,
      },
    });
  };
  const repliesSaying = (text: string) =>
    telegram.calls.filter((call) => call.method === 'sendMessage' && call.params.text === text);

  it('polls from one replica only, and answers a message once', async () => {
    // Several of B's lease checks go by: B never starts a second long poll beside A's.
    for (let look = 0; look < 8; look += 1) {
      await delay(LEASE_TTL_MS / 12);
      expect(telegram.waitingPolls()).toBeLessThanOrEqual(1);
    }
    llm.script({ text: 'Answered once.' });
    message('hello');
    await telegram.waitForCall('sendMessage', (call) => call.params.text === 'Answered once.');
    await delay(500);
    expect(repliesSaying('Answered once.')).toHaveLength(1);
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('shows the standing-by replica connected, and sends through it', async () => {
    const listed = await callRpc(b.url, b.tokens.admin, 'channels.list', {});
    const { channels } = listed.result as { channels: { id: string; state: string }[] };
    expect(channels.find((connection) => connection.id === 'tg')?.state).toBe('connected');
    const sent = await callRpc(b.url, b.tokens.admin, 'channels.send', { id: 'tg', chatId: '77', text: 'From B.' });
    expect(sent.result).toMatchObject({ delivered: true });
    expect(repliesSaying('From B.')).toHaveLength(1);
  });

  it('hands the polling to the other replica when the pulling one stops', async () => {
    await a?.close();
    a = undefined;
    await telegram.waitForWaitingPoll();
    llm.script({ text: 'Answered by B.' });
    message('are you there?');
    await telegram.waitForCall('sendMessage', (call) => call.params.text === 'Answered by B.');
    expect(repliesSaying('Answered by B.')).toHaveLength(1);
  });
});
