// Slack Socket Mode: the adapter opens a connection with the app token through apps.connections.open, acks every
// envelope, maps events and button presses like the Events API, reconnects when Slack asks, and disconnects at stop.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blockActions, eventCallback, FAKE_APP_TOKEN } from '../../support/fake-slack.js';
import { startSlackFixture, type SlackFixture } from './slack-fixture.js';

let fixture: SlackFixture;

beforeEach(async () => {
  fixture = await startSlackFixture('socket');
});

afterEach(async () => {
  await fixture.close();
});

describe('Slack adapter, Socket Mode', () => {
  it('connects with the app token, reports connected, and mounts no HTTP routes', async () => {
    await fixture.fake.waitForSocket();
    const open = await fixture.fake.waitForCall('apps.connections.open');
    expect(open.token).toBe(FAKE_APP_TOKEN);
    await fixture.until((r) => r.health.find((h) => h.state === 'connected'), 'connected');
    expect(fixture.recorded.health[0]).toEqual({ state: 'connecting' });
    expect(fixture.adapter.routes).toBeUndefined();
  });

  it('acks an events_api envelope and emits its message', async () => {
    await fixture.fake.waitForSocket();
    await fixture.until((r) => r.health.find((h) => h.state === 'connected'), 'connected');
    const event = { type: 'message', channel: 'D1', user: 'U1', text: 'over the socket', ts: '1700000200.000100' };
    await fixture.fake.pushEnvelope('events_api', eventCallback(event));
    const message = await fixture.until((r) => r.messages[0], 'a message');
    expect(message).toMatchObject({
      chatId: 'D1',
      senderId: 'U1',
      messageId: '1700000200.000100',
      text: 'over the socket',
    });
  });

  it('acks an interactive envelope and emits the approval answer', async () => {
    await fixture.fake.waitForSocket();
    await fixture.until((r) => r.health.find((h) => h.state === 'connected'), 'connected');
    await fixture.fake.pushEnvelope('interactive', blockActions('U7', 'D1', 'approve', 'req-9'));
    const answer = await fixture.until((r) => r.approvals[0], 'an approval');
    expect(answer).toEqual({ chatId: 'D1', senderId: 'U7', requestRef: 'req-9', approved: true });
  });

  it('reconnects when Slack asks it to, and keeps delivering', async () => {
    await fixture.fake.waitForSocket();
    fixture.fake.requestReconnect();
    await fixture.fake.waitForSocket(2);
    const event = { type: 'message', channel: 'D1', user: 'U1', text: 'after the refresh', ts: '1700000300.000100' };
    await fixture.fake.pushEnvelope('events_api', eventCallback(event));
    await fixture.until((r) => r.messages.find((m) => m.text === 'after the refresh'), 'a message after reconnecting');
    expect(fixture.fake.calls.filter((c) => c.method === 'apps.connections.open')).toHaveLength(2);
  });

  it('closes its connection at stop, reports disconnected, and opens no further connection', async () => {
    await fixture.fake.waitForSocket();
    await fixture.adapter.stop();
    expect(fixture.recorded.health.at(-1)).toEqual({ state: 'disconnected' });
    await fixture.fake.waitForSocketsClosed();
    expect(fixture.fake.socketConnections()).toBe(1);
  });
});

describe('Slack adapter, Socket Mode without Slack', () => {
  it('reports degraded with the error when connections keep failing', async () => {
    const failing = await startSlackFixture('socket', { appToken: 'xapp-wrong' });
    try {
      const degraded = await failing.until((r) => r.health.find((h) => h.state === 'degraded'), 'degraded');
      expect(degraded.error).toMatch(/invalid_auth/);
      expect(failing.fake.socketConnections()).toBe(0);
    } finally {
      await failing.close();
    }
  });
});
