// The Telegram adapter's outbound side against a fake Bot API: send, typing, approval requests and their settling,
// channels.test, and how refusals become retryable or final delivery failures.
import { afterEach, describe, expect, it } from 'vitest';
import { setUpAdapter, type AdapterSetup } from './telegram-fixture.js';

let setup: AdapterSetup | undefined;

afterEach(async () => {
  await setup?.adapter.stop();
  await setup?.telegram.close();
  setup = undefined;
});

async function ready(): Promise<AdapterSetup> {
  setup = await setUpAdapter({ mode: 'webhook', webhookSecret: 'sekret' });
  return setup;
}

const signal = () => AbortSignal.timeout(10_000);

const prompt = {
  chatId: '77',
  requestId: 'req-0a1b2c3d-4e5f-6789-abcd-ef0123456789',
  code: '7Q2K',
  toolName: 'shell.exec',
  summary: 'Runs `rm -rf build/`',
};

describe('Telegram adapter, delivery', () => {
  it('is a telegram channel of 4096-character messages', async () => {
    const { adapter } = await ready();
    expect(adapter.kind).toBe('telegram');
    expect(adapter.maxMessageChars).toBe(4096);
  });

  it('sends a reply into the chat, its topic and as a reply to the message answered, and returns the new message id', async () => {
    const { adapter, telegram } = await ready();
    const sent = await adapter.send(
      { chatId: '-1001', text: 'Hello **there**', threadId: '5', replyTo: '11' },
      signal(),
    );
    const call = await telegram.waitForCall('sendMessage');
    expect(call.params).toMatchObject({
      chat_id: '-1001',
      text: 'Hello **there**',
      message_thread_id: 5,
      reply_parameters: { message_id: 11, allow_sending_without_reply: true },
    });
    // Plain text: an agent's Markdown must not make Telegram refuse the message for bad entities.
    expect(call.params.parse_mode).toBeUndefined();
    expect(sent.messageId).toMatch(/^\d+$/);
  });

  it('fails a 429 as retryable with the retry_after Telegram named', async () => {
    const { adapter, telegram } = await ready();
    telegram.failNext('sendMessage', { status: 429, description: 'Too Many Requests: retry after 3', retryAfter: 3 });
    await expect(adapter.send({ chatId: '77', text: 'hi' }, signal())).rejects.toMatchObject({
      retryable: true,
      retryAfterMs: 3000,
    });
    // The adapter does not retry by itself: the core's queue does.
    expect(telegram.calls.filter((call) => call.method === 'sendMessage')).toHaveLength(1);
    expect((await adapter.send({ chatId: '77', text: 'hi' }, signal())).messageId).toMatch(/^\d+$/);
  });

  it('fails 5xx answers and unreachable servers as retryable, and 4xx refusals as final', async () => {
    const { adapter, telegram } = await ready();
    telegram.failNext('sendMessage', { status: 500, description: 'Internal Server Error' });
    telegram.failNext('sendMessage', { status: 502, rawBody: '<html>Bad Gateway</html>' });
    telegram.failNext('sendMessage', { status: 400, description: 'Bad Request: chat not found' });
    telegram.failNext('sendMessage', { status: 403, description: 'Forbidden: bot was blocked by the user' });
    const attempt = () => adapter.send({ chatId: '77', text: 'hi' }, signal()).catch((error: unknown) => error);
    const serverError = await attempt();
    expect(serverError).toMatchObject({ retryable: true });
    expect(serverError).not.toHaveProperty('retryAfterMs');
    expect(await attempt()).toMatchObject({ retryable: true });
    expect(await attempt()).toMatchObject({ retryable: false, message: expect.stringContaining('chat not found') });
    expect(await attempt()).toMatchObject({ retryable: false });
    await telegram.close();
    const unreachable = await attempt();
    expect(unreachable).toBeInstanceOf(Error);
    expect(unreachable).toMatchObject({ retryable: true });
    expect(String(unreachable)).not.toContain('test-token');
  });

  it('shows the typing indicator with sendChatAction', async () => {
    const { adapter, telegram } = await ready();
    await adapter.typing('77', '5');
    const call = await telegram.waitForCall('sendChatAction');
    expect(call.params).toMatchObject({ chat_id: '77', action: 'typing', message_thread_id: 5 });
  });

  it('asks for approval with Approve and Deny buttons carrying the request id in at most 64 bytes', async () => {
    const { adapter, telegram } = await ready();
    const posted = await adapter.askApproval(prompt, signal());
    const call = await telegram.waitForCall('sendMessage');
    expect(call.params.text).toContain('shell.exec');
    expect(call.params.text).toContain('Runs `rm -rf build/`');
    expect(call.params.reply_markup).toEqual({
      inline_keyboard: [
        [
          { text: 'Approve', callback_data: `ap:${prompt.requestId}:y` },
          { text: 'Deny', callback_data: `ap:${prompt.requestId}:n` },
        ],
      ],
    });
    expect(posted.messageId).toMatch(/^\d+$/);
  });

  it('carries the short code instead of a request id too long for callback_data', async () => {
    const { adapter, telegram } = await ready();
    await adapter.askApproval({ ...prompt, requestId: 'r'.repeat(80) }, signal());
    const call = await telegram.waitForCall('sendMessage');
    expect(JSON.stringify(call.params.reply_markup)).toContain('"ap:7Q2K:y"');
    expect(JSON.stringify(call.params.reply_markup)).not.toContain('r'.repeat(80));
  });

  it('settles a request by editing its message to say who decided, removing the buttons', async () => {
    const { adapter, telegram } = await ready();
    const { messageId } = await adapter.askApproval(prompt, signal());
    await adapter.settleApproval({ ...prompt, messageId, approved: true, by: 'alice' });
    const edit = await telegram.waitForCall('editMessageText');
    expect(edit.params).toMatchObject({ chat_id: '77', message_id: Number(messageId) });
    expect(edit.params.text).toContain('shell.exec');
    expect(edit.params.text).toContain('Approved by alice');
    expect(edit.params.reply_markup).toEqual({ inline_keyboard: [] });

    await adapter.settleApproval({ ...prompt, messageId, approved: false, by: 'admin (dashboard)' });
    await telegram.waitForCall('editMessageText', (call) =>
      String(call.params.text).includes('Denied by admin (dashboard)'),
    );
  });

  it('replies to the request when its message can no longer be edited', async () => {
    const { adapter, telegram } = await ready();
    telegram.failNext('editMessageText', { status: 400, description: "Bad Request: message can't be edited" });
    await adapter.settleApproval({ ...prompt, messageId: '5000', approved: true, by: 'alice' });
    const reply = await telegram.waitForCall('sendMessage');
    expect(reply.params).toMatchObject({ chat_id: '77', reply_parameters: { message_id: 5000 } });
    expect(reply.params.text).toContain('Approved by alice');
  });

  it('posts the decision when the request message id is not one Telegram gave', async () => {
    const { adapter, telegram } = await ready();
    await adapter.settleApproval({ ...prompt, messageId: 'not-a-number', approved: false, by: 'bob' });
    const post = await telegram.waitForCall('sendMessage');
    expect(post.params.text).toContain('Denied by bob');
    expect(post.params.reply_parameters).toBeUndefined();
    expect(telegram.calls.filter((call) => call.method === 'editMessageText')).toHaveLength(0);
  });

  it('treats a settle Telegram calls unmodified as done', async () => {
    const { adapter, telegram } = await ready();
    telegram.failNext('editMessageText', { status: 400, description: 'Bad Request: message is not modified' });
    await adapter.settleApproval({ ...prompt, messageId: '5000', approved: true, by: 'alice' });
    expect(telegram.calls.filter((call) => call.method === 'sendMessage')).toHaveLength(0);
  });

  it('tests the connection with getMe', async () => {
    const { adapter, telegram } = await ready();
    expect((await adapter.test(signal())).detail).toContain('@gateway_test_bot');
    telegram.failNext('getMe', { status: 401, description: 'Unauthorized' });
    await expect(adapter.test(signal())).rejects.toMatchObject({ retryable: false });
  });
});
