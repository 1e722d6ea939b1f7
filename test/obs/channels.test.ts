// Channel activity: counted from message events, live over stored history, stale channels, restart continuation, reset.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STALE_THRESHOLD_MS } from '../../src/obs/channels.js';
import { delivered, startObs, type ObsStack } from './support.js';

describe('obs channel activity', () => {
  let stack: ObsStack | undefined;
  afterEach(() => stack?.close());

  it('counts received and sent messages per channel from the bus', async () => {
    stack = startObs();
    const { events, obs, clock } = stack;
    events.emit('message:received', { agentId: 'default', sessionKey: 'default:alice:ws', channelId: 'ws', chars: 5 });
    clock.now += 1000;
    events.emit('message:sent', {
      agentId: 'default',
      sessionKey: 'default:alice:ws',
      channelId: 'ws',
      traceId: 't1',
      chars: 9,
      finishReason: 'stop',
    });
    events.emit('message:received', {
      agentId: 'default',
      sessionKey: 'default:bob:telegram',
      channelId: 'tg-42',
      channelType: 'telegram',
      chars: 1,
    });
    await delivered();
    expect(await obs.channels.get('ws')).toEqual({
      channelId: 'ws',
      channelType: 'ws',
      lastActiveAt: clock.now,
      messagesSent: 1,
      messagesReceived: 1,
    });
    expect((await obs.channels.all()).map((channel) => channel.channelId)).toEqual(['tg-42', 'ws']);
    expect(await obs.channels.get('nope')).toBeNull();
  });

  it(`lists channels idle for longer than the threshold (default ${STALE_THRESHOLD_MS} ms), longest idle first`, async () => {
    stack = startObs();
    const { obs, clock } = stack;
    obs.channels.touch({ channelId: 'a', channelType: 'ws' }, 'received', clock.now - 600_000);
    obs.channels.touch({ channelId: 'b', channelType: 'ws' }, 'received', clock.now - 400_000);
    obs.channels.touch({ channelId: 'c', channelType: 'ws' }, 'received', clock.now - 1000);
    expect((await obs.channels.stale()).map((channel) => channel.channelId)).toEqual(['a', 'b']);
    expect((await obs.channels.stale(500_000)).map((channel) => channel.channelId)).toEqual(['a']);
  });

  it('continues stored counters after a restart; history fills channels not seen live', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'obs-channels-'));
    try {
      const first = startObs(join(dir, 'gateway.db'));
      first.obs.channels.touch({ channelId: 'a', channelType: 'ws' }, 'received');
      first.obs.channels.touch({ channelId: 'b', channelType: 'ws' }, 'sent');
      await first.close();
      stack = startObs(join(dir, 'gateway.db'));
      stack.obs.channels.touch({ channelId: 'a', channelType: 'ws' }, 'received');
      expect(await stack.obs.channels.get('a')).toMatchObject({ messagesReceived: 2 });
      expect(
        (await stack.obs.channels.all()).map((channel) => [
          channel.channelId,
          channel.messagesSent,
          channel.messagesReceived,
        ]),
      ).toEqual([
        ['a', 0, 2],
        ['b', 1, 0],
      ]);
    } finally {
      await stack?.close();
      stack = undefined;
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reset deletes stored and live entries', async () => {
    stack = startObs();
    stack.obs.channels.touch({ channelId: 'a', channelType: 'ws' }, 'received');
    stack.obs.channels.touch({ channelId: 'b', channelType: 'ws' }, 'received');
    expect(await stack.obs.resetTable('channels')).toBe(2);
    expect(await stack.obs.channels.all()).toEqual([]);
  });
});
