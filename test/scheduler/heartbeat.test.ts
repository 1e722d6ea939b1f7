// Heartbeat jobs over the real scheduler, store and turn service: HEARTBEAT_OK delivers nothing, any other answer goes
// to the job's chat, a failed fire or delivery alerts; the target is validated at cron.add / cron.update.
import { afterEach, describe, expect, it } from 'vitest';
import type { BusEvent } from '../../src/events/index.js';
import type { SchedulerModuleDeps } from '../../src/scheduler/index.js';
import { DEFAULT_HEARTBEAT_PROMPT } from '../../src/scheduler/index.js';
import { createSchedulerFixture, type SchedulerFixture } from './scheduler-fixture.js';

type Delivered = { channelId: string; chatId: string; threadId?: string; text: string };

/** The channel delivery the channels module gives the scheduler: records each text, or fails as told. */
function recordingDelivery(outcome: { delivered: boolean; error?: string } = { delivered: true }) {
  const sent: Delivered[] = [];
  const heartbeats: NonNullable<SchedulerModuleDeps['heartbeats']> = {
    deliver: async (input) => {
      sent.push(input);
      return outcome;
    },
    hasChannel: (channelId) => channelId === 'tg',
  };
  return { sent, heartbeats };
}

const heartbeatEvents = (events: BusEvent[]) =>
  events
    .filter((event) => event.name.startsWith('scheduler:heartbeat'))
    .map(({ name, payload }) => ({ name, payload }));

describe('heartbeat jobs', () => {
  let s: SchedulerFixture | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  async function start(outcome?: { delivered: boolean; error?: string }) {
    const delivery = recordingDelivery(outcome);
    s = await createSchedulerFixture({ heartbeats: delivery.heartbeats });
    const events: BusEvent[] = [];
    s.bus.subscribe((event) => events.push(event));
    return { s, events, sent: delivery.sent };
  }

  /** Adds the heartbeat job `pulse` (every minute; `extra` overrides its params), fires it once and waits for the fire. */
  async function addAndFire(fixture: SchedulerFixture, extra: Record<string, unknown> = {}) {
    const added = await fixture.call(
      'admin',
      'cron.add',
      {
        name: 'pulse',
        schedule: { kind: 'interval', everyMs: 60_000 },
        heartbeat: { channelId: 'tg', chatId: '42' },
        ...extra,
      },
      true,
    );
    await fixture.clock.advance(60_000);
    await fixture.module.scheduler.whenIdle();
    return added;
  }

  it('delivers nothing when the answer is exactly HEARTBEAT_OK (trimmed), and the fire is an ok run entry', async () => {
    const { s, events, sent } = await start();
    s.fx.runner.script({ response: '  HEARTBEAT_OK\n' });
    const added = await addAndFire(s);
    expect(added.result).toMatchObject({ name: 'pulse', heartbeat: { channelId: 'tg', chatId: '42' } });
    expect(s.fx.runner.requests.map((request) => request.message)).toEqual([DEFAULT_HEARTBEAT_PROMPT]);
    expect(sent).toEqual([]);
    const jobId = (await s.runs('pulse', 'admin'))[0]?.jobId;
    expect(heartbeatEvents(events)).toEqual([
      { name: 'scheduler:heartbeat_check', payload: { jobId, agentId: 'default' } },
    ]);
    expect(await s.runs('pulse', 'admin')).toEqual([
      expect.objectContaining({ status: 'ok', summary: 'HEARTBEAT_OK' }),
    ]);
  });

  it('delivers any other answer to the target chat and thread and emits heartbeat_delivered', async () => {
    const { s, events, sent } = await start();
    s.fx.runner.script({ response: 'Disk is 93% full on db-2.' });
    await addAndFire(s, {
      message: 'Check the fleet; answer HEARTBEAT_OK when all is well.',
      heartbeat: { channelId: 'tg', chatId: '42', threadId: '7' },
    });
    expect(sent).toEqual([{ channelId: 'tg', chatId: '42', threadId: '7', text: 'Disk is 93% full on db-2.' }]);
    expect(heartbeatEvents(events).map((event) => event.name)).toEqual([
      'scheduler:heartbeat_check',
      'scheduler:heartbeat_delivered',
    ]);
    expect(await s.runs('pulse', 'admin')).toEqual([expect.objectContaining({ status: 'ok' })]);
  });

  it('alerts when the delivery fails: the run entry and lastError carry the reason', async () => {
    const { s, events } = await start({ delivered: false, error: 'channel tg is not running' });
    s.fx.runner.script({ response: 'Something is wrong.' });
    await addAndFire(s);
    const alert = heartbeatEvents(events).find((event) => event.name === 'scheduler:heartbeat_alert');
    expect(alert?.payload).toMatchObject({ agentId: 'default', reason: expect.stringContaining('not running') });
    const [entry] = await s.runs('pulse', 'admin');
    expect(entry).toMatchObject({ status: 'error', error: expect.stringContaining('not running') });
    expect((await s.call('admin', 'cron.status', { name: 'pulse' }, true)).result).toMatchObject({
      lastError: expect.stringContaining('not running'),
    });
  });

  it('alerts when the turn fails, and delivers nothing', async () => {
    const { s, events, sent } = await start();
    s.fx.runner.script({ finishReason: 'error', error: 'provider down', response: '' });
    await addAndFire(s);
    expect(sent).toEqual([]);
    expect(heartbeatEvents(events).map((event) => [event.name, 'reason' in event.payload])).toEqual([
      ['scheduler:heartbeat_check', false],
      ['scheduler:heartbeat_alert', true],
    ]);
    expect((await s.runs('pulse', 'admin'))[0]).toMatchObject({ status: 'error' });
  });

  it('refuses a heartbeat naming an unknown channel at cron.add and cron.update with -32602 naming the param', async () => {
    const { s } = await start();
    const refused = await s.call(
      'admin',
      'cron.add',
      {
        name: 'pulse',
        schedule: { kind: 'interval', everyMs: 60_000 },
        heartbeat: { channelId: 'nope', chatId: '42' },
      },
      true,
    );
    expect(refused.error).toMatchObject({ code: -32602, data: { param: 'heartbeat.channelId' } });
    await s.call(
      'admin',
      'cron.add',
      { name: 'plain', message: 'x', schedule: { kind: 'interval', everyMs: 60_000 } },
      true,
    );
    const update = await s.call(
      'admin',
      'cron.update',
      { name: 'plain', heartbeat: { channelId: 'nope', chatId: '1' } },
      true,
    );
    expect(update.error).toMatchObject({ code: -32602, data: { param: 'heartbeat.channelId' } });
    const withoutMessage = await s.call(
      'admin',
      'cron.add',
      { name: 'bare', schedule: { kind: 'interval', everyMs: 60_000 } },
      true,
    );
    expect(withoutMessage.error).toMatchObject({ code: -32602, data: { param: 'message' } });
  });

  it('turns a job into a heartbeat with cron.update and back with heartbeat null', async () => {
    const { s } = await start();
    await s.call(
      'admin',
      'cron.add',
      { name: 'plain', message: 'x', schedule: { kind: 'interval', everyMs: 60_000 } },
      true,
    );
    const on = await s.call(
      'admin',
      'cron.update',
      { name: 'plain', heartbeat: { channelId: 'tg', chatId: '9' } },
      true,
    );
    expect(on.result).toMatchObject({ heartbeat: { channelId: 'tg', chatId: '9' } });
    const off = await s.call('admin', 'cron.update', { name: 'plain', heartbeat: null }, true);
    expect(off.result).not.toHaveProperty('heartbeat');
  });

  it("refuses a heartbeat from a non-admin token: it would post into a chat as the channel's bot", async () => {
    const { s } = await start();
    const refused = await s.call('rpc-client', 'cron.add', {
      name: 'pulse',
      schedule: { kind: 'interval', everyMs: 60_000 },
      heartbeat: { channelId: 'tg', chatId: '42' },
    });
    expect(refused.error).toMatchObject({ code: -32603, data: { kind: 'forbidden' } });
  });
});
