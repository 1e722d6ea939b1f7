// The Telegram adapter in polling mode against a fake Bot API: messages, attachments, reactions and approval buttons
// in; health from connecting to connected, degraded on repeated failures and disconnected at stop; stop ends the poll.
import { afterEach, describe, expect, it } from 'vitest';
import { NOW, setUpAdapter, textMessage, type AdapterSetup } from './telegram-fixture.js';

let setup: AdapterSetup | undefined;

afterEach(async () => {
  await setup?.adapter.stop();
  await setup?.telegram.close();
  setup = undefined;
});

async function started(): Promise<AdapterSetup> {
  setup = await setUpAdapter();
  await setup.adapter.start(setup.events);
  return setup;
}

describe('Telegram adapter, polling', () => {
  it('reports connecting then connected, asks for reactions and button presses, and turns a text message into a message event', async () => {
    const { telegram, events } = await started();
    await events.waitForState('connected');
    expect(events.states[0]).toEqual({ state: 'connecting' });
    const poll = await telegram.waitForCall('getUpdates');
    expect(poll.params.allowed_updates).toEqual(
      expect.arrayContaining(['message', 'message_reaction', 'callback_query']),
    );

    const updateId = telegram.pushUpdate({ message: textMessage('hello agent') });
    await events.waitFor('messages');
    expect(events.messages[0]).toEqual({
      chatId: '77',
      senderId: '77',
      messageId: '11',
      text: 'hello agent',
      attachments: [],
      receivedAt: NOW,
    });
    // The next poll confirms the update, so Telegram does not deliver it again.
    await telegram.waitForCall('getUpdates', (call) => call.params.offset === updateId + 1);
    expect(telegram.pendingUpdates()).toBe(0);
  });

  it('strips its own @username from a command in a group, keeps the forum topic as the thread, and ignores other bots', async () => {
    const { telegram, events } = await started();
    telegram.pushUpdate({
      message: textMessage('hi', { from: { id: 9, is_bot: true, first_name: 'Other bot' }, message_id: 1 }),
    });
    telegram.pushUpdate({
      message: textMessage('/new@gateway_test_bot', {
        chat: { id: -1001, type: 'supergroup', title: 'Team' },
        message_id: 2,
        message_thread_id: 5,
        is_topic_message: true,
      }),
    });
    await events.waitFor('messages');
    expect(events.messages).toHaveLength(1);
    expect(events.messages[0]).toMatchObject({ chatId: '-1001', senderId: '77', text: '/new', threadId: '5' });
  });

  it('offers a voice note as an audio attachment fetched through getFile and cut off past the cap', async () => {
    const { telegram, events } = await started();
    const voice = Buffer.from('OggS fake voice note bytes');
    telegram.addFile('voice-1', 'voice/file_1.oga', voice);
    telegram.addFile('photo-big', 'photos/file_2.jpg', Buffer.alloc(2048, 1));
    telegram.pushUpdate({
      message: textMessage('', {
        text: undefined,
        voice: {
          file_id: 'voice-1',
          file_unique_id: 'v1',
          duration: 2,
          mime_type: 'audio/ogg',
          file_size: voice.length,
        },
      }),
    });
    telegram.pushUpdate({
      message: textMessage('', {
        text: undefined,
        message_id: 12,
        caption: 'look',
        photo: [
          { file_id: 'photo-small', file_unique_id: 'p1', width: 90, height: 90, file_size: 100 },
          { file_id: 'photo-big', file_unique_id: 'p2', width: 800, height: 800, file_size: 2048 },
        ],
      }),
    });
    await events.waitFor('messages', 2);
    const [voiceMessage, photoMessage] = events.messages;
    expect(voiceMessage?.text).toBe('');
    expect(voiceMessage?.attachments).toHaveLength(1);
    const audio = voiceMessage?.attachments[0];
    expect(audio).toMatchObject({ kind: 'audio', mimeType: 'audio/ogg', bytes: voice.length });
    expect(await audio?.fetch(1024, AbortSignal.timeout(5_000))).toEqual(voice);
    expect(telegram.calls.some((call) => call.method === 'getFile' && call.params.file_id === 'voice-1')).toBe(true);

    expect(photoMessage?.text).toBe('look');
    const image = photoMessage?.attachments[0];
    expect(image).toMatchObject({ kind: 'image', mimeType: 'image/jpeg', bytes: 2048 });
    await expect(image?.fetch(1000, AbortSignal.timeout(5_000))).rejects.toMatchObject({ kind: 'payload_too_large' });
  });

  it('offers a document as a file attachment with its name and type', async () => {
    const { telegram, events } = await started();
    telegram.pushUpdate({
      message: textMessage('', {
        text: undefined,
        document: {
          file_id: 'doc-1',
          file_unique_id: 'd1',
          file_name: 'report.pdf',
          mime_type: 'application/pdf',
          file_size: 10,
        },
      }),
    });
    await events.waitFor('messages');
    expect(events.messages[0]?.attachments[0]).toMatchObject({
      kind: 'file',
      mimeType: 'application/pdf',
      name: 'report.pdf',
      bytes: 10,
    });
  });

  it('turns 👍 and 👎 reactions into positive and negative reaction events', async () => {
    const { telegram, events } = await started();
    const reaction = (emoji: string, old: string[] = []) => ({
      message_reaction: {
        chat: { id: 77, type: 'private' },
        message_id: 5001,
        user: { id: 77, is_bot: false, first_name: 'Alice' },
        date: 1_790_000_000,
        old_reaction: old.map((value) => ({ type: 'emoji', emoji: value })),
        new_reaction: [{ type: 'emoji', emoji }, ...old.map((value) => ({ type: 'emoji', emoji: value }))],
      },
    });
    telegram.pushUpdate(reaction('👍'));
    telegram.pushUpdate(reaction('👎'));
    telegram.pushUpdate(reaction('🔥', ['👍']));
    await events.waitFor('reactions', 3);
    expect(events.reactions).toEqual([
      { chatId: '77', senderId: '77', messageId: '5001', polarity: 'positive', raw: '👍' },
      { chatId: '77', senderId: '77', messageId: '5001', polarity: 'negative', raw: '👎' },
      { chatId: '77', senderId: '77', messageId: '5001', polarity: 'other', raw: '🔥' },
    ]);
  });

  it('turns an approval button press into an approval event and answers the callback query', async () => {
    const { telegram, events } = await started();
    const press = (data: string, id: string) => ({
      callback_query: {
        id,
        from: { id: 77, is_bot: false, first_name: 'Alice' },
        chat_instance: 'ci',
        message: { message_id: 5002, date: 1_790_000_000, chat: { id: 77, type: 'private' }, text: 'Approval needed' },
        data,
      },
    });
    telegram.pushUpdate(press('ap:req-123:y', 'cb-1'));
    telegram.pushUpdate(press('ap:req-456:n', 'cb-2'));
    telegram.pushUpdate(press('something else', 'cb-3'));
    await events.waitFor('approvals', 2);
    expect(events.approvals).toEqual([
      { chatId: '77', senderId: '77', requestRef: 'req-123', approved: true },
      { chatId: '77', senderId: '77', requestRef: 'req-456', approved: false },
    ]);
    // Every press is answered, so the button stops spinning, even one that is no approval.
    for (const id of ['cb-1', 'cb-2', 'cb-3'])
      await telegram.waitForCall('answerCallbackQuery', (call) => call.params.callback_query_id === id);
    expect(events.approvals).toHaveLength(2);
  });

  it('stops while a long poll is held: the poll is hung up, no poll follows, and health ends disconnected', async () => {
    const { telegram, adapter, events } = await started();
    await events.waitForState('connected');
    await telegram.waitForWaitingPoll();
    await adapter.stop();
    await telegram.waitForNoWaitingPoll();
    const pollsAtStop = telegram.calls.filter((call) => call.method === 'getUpdates').length;
    expect(events.states.at(-1)).toEqual({ state: 'disconnected' });
    // An update queued after stop is not fetched by anything left running.
    telegram.pushUpdate({ message: textMessage('late') });
    await adapter.stop();
    expect(telegram.calls.filter((call) => call.method === 'getUpdates').length).toBe(pollsAtStop);
    expect(events.messages).toHaveLength(0);
  });

  it('reports degraded with the error after repeated poll failures and connected again once a poll succeeds', async () => {
    setup = await setUpAdapter();
    const { telegram, adapter, events } = setup;
    telegram.failNext('getUpdates', { status: 502, rawBody: '<html>Bad Gateway</html>' });
    telegram.failNext('getUpdates', { status: 500, description: 'Internal Server Error' });
    await adapter.start(events);
    await events.waitForState('degraded');
    const degraded = events.states.find((entry) => entry.state === 'degraded');
    expect(degraded?.error).toMatch(/getUpdates/);
    const index = events.states.indexOf(degraded ?? { state: 'degraded' });
    await events.waitForState('connected', index + 1);
    telegram.pushUpdate({ message: textMessage('back') });
    await events.waitFor('messages');
    expect(events.messages[0]?.text).toBe('back');
  });

  it('waits the retry_after of a 429 on getUpdates and then delivers without reporting degraded', async () => {
    setup = await setUpAdapter();
    const { telegram, adapter, events } = setup;
    telegram.failNext('getUpdates', { status: 429, description: 'Too Many Requests: retry after 1', retryAfter: 1 });
    telegram.pushUpdate({ message: textMessage('after the wait') });
    await adapter.start(events);
    await events.waitFor('messages');
    expect(events.messages[0]?.text).toBe('after the wait');
    expect(events.states.map((entry) => entry.state)).not.toContain('degraded');
  });
});
