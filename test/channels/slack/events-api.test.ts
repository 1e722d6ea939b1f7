// Slack Events API mode: signed deliveries to /channels/<id>/slack/events and /slack/interactive become the contract's
// message, reaction and approval events; unsigned, stale, malformed or unknown deliveries are refused.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  blockActions,
  eventCallback,
  FAKE_BOT_ID,
  FAKE_BOT_TOKEN,
  FAKE_BOT_USER_ID,
  postEvent,
  postInteractive,
  postSigned,
} from '../../support/fake-slack.js';
import { startSlackFixture, type SlackFixture } from './slack-fixture.js';

let fixture: SlackFixture;

beforeEach(async () => {
  fixture = await startSlackFixture('events');
});

afterEach(async () => {
  await fixture.close();
});

const userMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'message',
  channel: 'C1',
  user: 'U1',
  text,
  ts: '1700000100.000200',
  ...extra,
});

describe('Slack adapter, Events API mode', () => {
  it('connects with auth.test on the bot token and reports connecting, then connected', async () => {
    const call = await fixture.fake.waitForCall('auth.test');
    expect(call.token).toBe(FAKE_BOT_TOKEN);
    await fixture.until((r) => r.health.find((h) => h.state === 'connected'), 'connected');
    expect(fixture.recorded.health.map((h) => h.state)).toEqual(['connecting', 'connected']);
    expect(fixture.adapter.kind).toBe('slack');
    expect(fixture.adapter.maxMessageChars).toBe(3_900);
  });

  it('answers the url_verification challenge', async () => {
    const answer = await postEvent(fixture.routeBase, { type: 'url_verification', token: 't', challenge: 'abc123' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ challenge: 'abc123' });
  });

  it('turns a user message into a message event with channel, sender, ts and thread ts', async () => {
    const answer = await postEvent(
      fixture.routeBase,
      eventCallback(userMessage('hello agent', { thread_ts: '1700000000.000100' })),
    );
    expect(answer.status).toBe(200);
    const message = await fixture.until((r) => r.messages[0], 'a message');
    expect(message).toMatchObject({
      chatId: 'C1',
      senderId: 'U1',
      messageId: '1700000100.000200',
      threadId: '1700000000.000100',
      text: 'hello agent',
      attachments: [],
    });
    expect(typeof message.receivedAt).toBe('number');
  });

  it("ignores the bot's own messages and edits, and a retried delivery of the same event", async () => {
    await postEvent(fixture.routeBase, eventCallback(userMessage('mine', { bot_id: FAKE_BOT_ID })));
    await postEvent(fixture.routeBase, eventCallback(userMessage('mine too', { user: FAKE_BOT_USER_ID })));
    await postEvent(
      fixture.routeBase,
      eventCallback({ type: 'message', subtype: 'message_changed', channel: 'C1', ts: '1700000100.000300' }),
    );
    const first = eventCallback(userMessage('once'), 'Ev-retried');
    await postEvent(fixture.routeBase, first);
    await postEvent(fixture.routeBase, first);
    await postEvent(fixture.routeBase, eventCallback(userMessage('last')));
    await fixture.until((r) => r.messages.find((m) => m.text === 'last'), 'the last message');
    expect(fixture.recorded.messages.map((m) => m.text)).toEqual(['once', 'last']);
  });

  it('refuses a bad signature, a stale timestamp and a missing signature with 401, emitting nothing', async () => {
    const payload = eventCallback(userMessage('forged'));
    const forged = await postEvent(fixture.routeBase, payload, { secret: 'not-the-secret' });
    expect(forged.status).toBe(401);
    const stale = await postEvent(fixture.routeBase, payload, {
      timestampSeconds: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    expect(stale.status).toBe(401);
    const unsigned = await postEvent(fixture.routeBase, payload, { signature: '' });
    expect(unsigned.status).toBe(401);
    const interactive = await postInteractive(fixture.routeBase, blockActions('U9', 'C1', 'approve', 'req-1'), {
      secret: 'not-the-secret',
    });
    expect(interactive.status).toBe(401);
    await postEvent(fixture.routeBase, eventCallback(userMessage('genuine')));
    await fixture.until((r) => r.messages[0], 'the genuine message');
    expect(fixture.recorded.messages.map((m) => m.text)).toEqual(['genuine']);
    expect(fixture.recorded.approvals).toEqual([]);
  });

  it('refuses malformed JSON and unknown payload types with 400', async () => {
    const malformed = await postSigned(`${fixture.routeBase}/slack/events`, '{"type":', 'application/json');
    expect(malformed.status).toBe(400);
    const unknown = await postEvent(fixture.routeBase, { type: 'something_else' });
    expect(unknown.status).toBe(400);
    const noPayload = await postSigned(
      `${fixture.routeBase}/slack/interactive`,
      'other=1',
      'application/x-www-form-urlencoded',
    );
    expect(noPayload.status).toBe(400);
    const badPayload = await postInteractive(fixture.routeBase, { type: 'block_actions' });
    expect(badPayload.status).toBe(400);
  });

  it('maps reaction_added to positive, negative and other polarity', async () => {
    const reaction = (name: string) =>
      eventCallback({
        type: 'reaction_added',
        user: 'U1',
        reaction: name,
        item: { type: 'message', channel: 'C1', ts: '1700000001.000100' },
      });
    for (const name of ['+1', 'thumbsdown', '+1::skin-tone-3', 'eyes']) {
      expect((await postEvent(fixture.routeBase, reaction(name))).status).toBe(200);
    }
    await fixture.until((r) => (r.reactions.length === 4 ? r.reactions : undefined), 'four reactions');
    expect(fixture.recorded.reactions).toEqual([
      { chatId: 'C1', senderId: 'U1', messageId: '1700000001.000100', polarity: 'positive', raw: '+1' },
      { chatId: 'C1', senderId: 'U1', messageId: '1700000001.000100', polarity: 'negative', raw: 'thumbsdown' },
      { chatId: 'C1', senderId: 'U1', messageId: '1700000001.000100', polarity: 'positive', raw: '+1::skin-tone-3' },
      { chatId: 'C1', senderId: 'U1', messageId: '1700000001.000100', polarity: 'other', raw: 'eyes' },
    ]);
  });

  it('turns approve and deny button presses into approval answers carrying the request id', async () => {
    const approve = await postInteractive(fixture.routeBase, blockActions('U7', 'C1', 'approve', 'req-1'));
    expect(approve.status).toBe(200);
    await postInteractive(fixture.routeBase, blockActions('U7', 'C1', 'deny', 'req-2'));
    await fixture.until((r) => (r.approvals.length === 2 ? r.approvals : undefined), 'two approval answers');
    expect(fixture.recorded.approvals).toEqual([
      { chatId: 'C1', senderId: 'U7', requestRef: 'req-1', approved: true },
      { chatId: 'C1', senderId: 'U7', requestRef: 'req-2', approved: false },
    ]);
  });

  it('gives files as attachments fetched with the bot token and cut off past the cap', async () => {
    const voice = fixture.fake.addFile(Buffer.alloc(2_000, 7), 'voice.m4a', 'audio/mp4');
    const picture = fixture.fake.addFile(Buffer.from('png-bytes'), 'cat.png', 'image/png');
    await postEvent(
      fixture.routeBase,
      eventCallback(userMessage('listen', { subtype: 'file_share', files: [voice, picture] })),
    );
    const message = await fixture.until((r) => r.messages[0], 'a message with files');
    const [audio, image] = message.attachments;
    expect(audio).toMatchObject({ kind: 'audio', mimeType: 'audio/mp4', name: 'voice.m4a', bytes: 2_000 });
    expect(image).toMatchObject({ kind: 'image', mimeType: 'image/png', name: 'cat.png', bytes: 9 });
    const fetched = await audio?.fetch(10_000, AbortSignal.timeout(10_000));
    expect(fetched?.equals(Buffer.alloc(2_000, 7))).toBe(true);
    expect(fixture.fake.fileDownloads.at(-1)).toEqual({ id: voice.id, token: FAKE_BOT_TOKEN });
    await expect(audio?.fetch(1_000, AbortSignal.timeout(10_000))).rejects.toMatchObject({
      kind: 'payload_too_large',
    });
  });
});
