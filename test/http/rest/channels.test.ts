// GET /api/channels: the gateway surfaces, always listed, merged with the recorded channel activity.
import { describe, expect, it } from 'vitest';
import { channelStatuses } from '../../../src/http/rest/channels.js';

const activity = [
  { channelId: 'telegram', channelType: 'telegram', lastActiveAt: 300, messagesSent: 4, messagesReceived: 5 },
  { channelId: 'openai', channelType: 'openai', lastActiveAt: 200, messagesSent: 1, messagesReceived: 1 },
];

describe('channelStatuses', () => {
  it('lists rpc, rest and openai first, idle ones with zero counts, then other recorded channels', () => {
    expect(channelStatuses(activity, { wsConnections: () => 0 })).toEqual([
      {
        channelId: 'rpc',
        channelType: 'jsonrpc',
        enabled: true,
        status: 'listening',
        lastActiveAt: null,
        messagesSent: 0,
        messagesReceived: 0,
        connections: 0,
      },
      {
        channelId: 'rest',
        channelType: 'rest',
        enabled: true,
        status: 'listening',
        lastActiveAt: null,
        messagesSent: 0,
        messagesReceived: 0,
      },
      {
        channelId: 'openai',
        channelType: 'openai',
        enabled: true,
        status: 'listening',
        lastActiveAt: 200,
        messagesSent: 1,
        messagesReceived: 1,
      },
      {
        channelId: 'telegram',
        channelType: 'telegram',
        enabled: true,
        status: 'listening',
        lastActiveAt: 300,
        messagesSent: 4,
        messagesReceived: 5,
      },
    ]);
  });

  it('marks the rpc channel connected while WebSockets are open, and lists the webhook when it is mounted', () => {
    const statuses = channelStatuses([], { wsConnections: () => 2, isWebhookEnabled: () => true });
    expect(statuses[0]).toMatchObject({ channelId: 'rpc', status: 'connected', connections: 2 });
    expect(statuses.map((status) => status.channelId)).toEqual(['rpc', 'rest', 'openai', 'webhook']);
  });

  it('shows the recorded activity of an unmounted webhook as disabled', () => {
    const webhook = {
      channelId: 'webhook',
      channelType: 'webhook',
      lastActiveAt: 100,
      messagesSent: 1,
      messagesReceived: 1,
    };
    expect(channelStatuses([webhook], { isWebhookEnabled: () => false }).at(-1)).toEqual({
      ...webhook,
      enabled: false,
      status: 'listening',
    });
    expect(channelStatuses([webhook], { isWebhookEnabled: () => true }).at(-1)).toMatchObject({
      channelId: 'webhook',
      enabled: true,
      messagesSent: 1,
    });
  });
});
