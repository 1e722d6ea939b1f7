// Approvals from a chat, end to end over Telegram (grammy against the fake Bot API): a gated call of a chat's turn is
// posted with buttons and a code; the inline button, a typed "approve CODE" or admin.approval.resolve decides it and the
// post is settled either way; a non-operator's press is ignored; a restart with a request pending tells the chat.
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startFakeTelegram, type FakeTelegram, type RecordedCall } from '../support/fake-telegram.js';
import { startGateway, TOKENS, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const TOKEN = '123456:test-token';
const ALICE = 77;
const MALLORY = 88;

let llm: FakeLlm;
let telegram: FakeTelegram;
let messageId = 100;
let callbackId = 0;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  llm = await startFakeLlm();
  telegram = await startFakeTelegram({ token: TOKEN });
});
afterAll(async () => {
  await telegram.close();
  await llm.close();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function options(): HarnessOptions {
  return {
    providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
    agents: {
      helper: {
        name: 'Helper',
        provider: 'fake',
        model: 'fake-model',
        tools: ['current_time'],
        requireApproval: ['current_time'],
      },
    },
    // Mallory may talk to the agent in the team chat (allowed chat) but is no operator (not on allow.senders).
    channels: {
      tg: {
        kind: 'telegram',
        agentId: 'helper',
        token: TOKEN,
        apiBaseUrl: telegram.apiRoot,
        allow: { senders: [String(ALICE)], chats: ['-500', '-501', '-502', '-503', '-504'] },
      },
    },
  };
}

function say(chatId: number, from: number, text: string): void {
  messageId += 1;
  telegram.pushUpdate({
    message: {
      message_id: messageId,
      date: 1_790_000_000,
      chat: { id: chatId, type: chatId < 0 ? 'group' : 'private', first_name: 'Alice' },
      from: { id: from, is_bot: false, first_name: from === ALICE ? 'Alice' : 'Mallory' },
      text,
    },
  });
}

function press(chatId: number, post: RecordedCall, from: number, approved: boolean): void {
  callbackId += 1;
  telegram.pushUpdate({
    callback_query: {
      id: `cb-${callbackId}`,
      from: { id: from, is_bot: false, first_name: 'someone' },
      chat_instance: 'ci',
      data: buttonData(post, approved),
      message: { message_id: 1, date: 1_790_000_000, chat: { id: chatId, type: 'group' }, text: 'approval' },
    },
  });
}

function buttonData(post: RecordedCall, approved: boolean): string {
  const markup = post.params.reply_markup as { inline_keyboard: { callback_data: string }[][] };
  const button = markup.inline_keyboard.flat().find((entry) => entry.callback_data.endsWith(approved ? ':y' : ':n'));
  if (button === undefined) throw new Error('no approval button');
  return button.callback_data;
}

const inChat = (chatId: number) => (call: RecordedCall) => String(call.params.chat_id) === String(chatId);
const approvalPost = (chatId: number) =>
  telegram.waitForCall('sendMessage', (call) => inChat(chatId)(call) && call.params.reply_markup !== undefined);
const settled = (chatId: number) => telegram.waitForCall('editMessageText', inChat(chatId));
const codeOf = (post: RecordedCall) => /\(code ([A-Z0-9]+)\)/.exec(String(post.params.text))?.[1] ?? '';
const textsTo = (chatId: number) =>
  telegram.calls
    .filter((call) => call.method === 'sendMessage' && inChat(chatId)(call))
    .map((call) => String(call.params.text));

async function admin(harness: { url: string }, method: string, params?: unknown) {
  const response = await callRpc(harness.url, TOKENS.admin, method, params);
  if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
  return response.result as Record<string, unknown>;
}

const pendingIds = async (harness: { url: string }) =>
  ((await admin(harness, 'admin.approval.pending')).requests as { id: string }[]).map((request) => request.id);

describe('e2e: approvals answered from a Telegram chat', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startGateway(options());
  });
  afterAll(async () => {
    await harness.close();
  });

  it('posts a gated call to the chat with a code; the inline button approves it and the post says who', async () => {
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'It is noon.' });
    say(-500, ALICE, 'what time is it?');
    const post = await approvalPost(-500);
    expect(String(post.params.text)).toContain('current_time');
    expect(codeOf(post)).toMatch(/^[2-9A-HJKMNP-Z]{5}$/);
    const [id] = await pendingIds(harness);
    expect(buttonData(post, true)).toBe(`ap:${String(id)}:y`);
    press(-500, post, ALICE, true);
    expect(String((await settled(-500)).params.text)).toMatch(/Approved by 77/);
    await vi.waitFor(() => expect(textsTo(-500)).toContain('It is noon.'), { timeout: 10_000, interval: 50 });
    expect(await pendingIds(harness)).toEqual([]);
  });

  it('settles the chat post when admin.approval.resolve decides first; a later press is told how it ended', async () => {
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'Not allowed, then.' });
    say(-501, ALICE, 'time again?');
    const post = await approvalPost(-501);
    const [id] = await pendingIds(harness);
    await admin(harness, 'admin.approval.resolve', { id, approved: false });
    expect(String((await settled(-501)).params.text)).toMatch(/Denied by admin/);
    await vi.waitFor(() => expect(textsTo(-501)).toContain('Not allowed, then.'), { timeout: 10_000, interval: 50 });
    press(-501, post, ALICE, true);
    await vi.waitFor(() => expect(textsTo(-501).at(-1)).toMatch(/^Already decided: denied by admin/), {
      timeout: 10_000,
      interval: 50,
    });
  });

  it('takes a typed "approve CODE" from the operator as the answer, not as a message for the agent', async () => {
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'Typed and done.' });
    const asked = llm.chatRequests().length;
    say(-502, ALICE, 'what time, typed?');
    const post = await approvalPost(-502);
    say(-502, ALICE, `approve ${codeOf(post).toLowerCase()}`);
    expect(String((await settled(-502)).params.text)).toMatch(/Approved by 77/);
    await vi.waitFor(() => expect(textsTo(-502)).toContain('Typed and done.'), { timeout: 10_000, interval: 50 });
    // Two model calls: the tool call and the answer after it; the typed reply started no turn of its own.
    expect(llm.chatRequests().length - asked).toBe(2);
  });

  it("ignores a non-operator's press (not on allow.senders): the operator's later answer decides", async () => {
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'Denied, fine.' });
    say(-503, ALICE, 'time, please');
    const post = await approvalPost(-503);
    press(-503, post, MALLORY, true);
    press(-503, post, ALICE, false);
    expect(String((await settled(-503)).params.text)).toMatch(/Denied by 77/);
    await vi.waitFor(() => expect(textsTo(-503)).toContain('Denied, fine.'), { timeout: 10_000, interval: 50 });
    expect(telegram.calls.filter((call) => call.method === 'editMessageText' && inChat(-503)(call))).toHaveLength(1);
  });
});

describe('e2e: a chat approval pending across a gateway restart', () => {
  it('is resolved by the restarted gateway with a reason, approval:resolved emitted, and the chat told', async () => {
    const first = await startGateway(options());
    cleanups.push(() => first.close());
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] });
    say(-504, ALICE, 'time before the crash?');
    await approvalPost(-504);
    const [id] = await pendingIds(first);

    // A crash: the database as it is on disk while the first process still waits; the first then goes away.
    const crashedDir = await mkdtemp(join(tmpdir(), 'agent-gateway-chat-approvals-'));
    cleanups.push(() => rm(crashedDir, { recursive: true, force: true }));
    const crashedDb = join(crashedDir, 'gateway.db');
    const source = new Database(first.paths.databasePath, { readonly: true });
    await source.backup(crashedDb);
    source.close();
    await first.close();
    const heardBefore = textsTo(-504).length;

    const restarted = await startGateway({ ...options(), sharedDatabasePath: crashedDb });
    cleanups.push(() => restarted.close());
    await vi.waitFor(
      () =>
        expect(textsTo(-504).slice(heardBefore)).toContainEqual(
          expect.stringMatching(/^Cancelled: the gateway restarted before a decision — ask again\. \(current_time/),
        ),
      { timeout: 15_000, interval: 50 },
    );
    expect(await pendingIds(restarted)).toEqual([]);
    const resolved = restarted.app.events
      .recent(500)
      .find((event) => event.name === 'approval:resolved' && event.payload.requestId === id);
    expect(resolved?.payload).toMatchObject({ approved: false, resolvedBy: 'system:restart' });
    const db = new Database(crashedDb, { readonly: true });
    const row = db.prepare('SELECT status, resolved_by FROM approval_requests WHERE id = ?').get(id);
    db.close();
    expect(row).toEqual({ status: 'denied', resolved_by: 'system:restart' });
  });
});
