// Wake gates: a skipped fire is recorded with the spec's fields and feeds the cron_wake_gate evidence; a wake runs the turn.
import { afterEach, describe, expect, it } from 'vitest';
import { SIGNAL_KIND, TRAJECTORY_KIND } from '../../src/obs/index.js';
import { WAKE_GATE_SKIPPED } from '../../src/scheduler/index.js';
import { createSchedulerFixture, type SchedulerFixture } from './scheduler-fixture.js';

describe('scheduler wake gates', () => {
  let s: SchedulerFixture;
  afterEach(async () => {
    await s.close();
  });

  const toolGate = { kind: 'tool', tool: 'inbox_unread', args: { folder: 'INBOX' } };

  it('skips the model when the gate tool finds nothing: status skipped, wake-gate summary, estTurnsSaved 1, toolCalls, rootRunId', async () => {
    s = await createSchedulerFixture();
    const added = await s.call('rpc-client', 'cron.add', {
      name: 'inbox',
      message: 'triage the inbox',
      schedule: { kind: 'interval', everyMs: 60_000 },
      wakeGate: toolGate,
    });
    expect(added).toMatchObject({ result: { wakeGate: toolGate } });
    await s.clock.advance(60_000);
    await s.module.scheduler.whenIdle();
    const [entry] = await s.runs('inbox');
    expect(entry).toEqual({
      ts: s.clock.now(),
      jobId: expect.any(String),
      status: 'skipped',
      durationMs: 0,
      summary: WAKE_GATE_SKIPPED,
      toolCalls: 1,
      estTurnsSaved: 1,
      rootRunId: expect.any(String),
    });
    expect(s.inbox.calls).toBe(1);
    expect(s.fx.runner.requests).toEqual([]);
    expect(s.started).toEqual([]);
    expect(s.signals).toEqual([
      {
        kind: SIGNAL_KIND.cronWakeGate,
        agentId: 'default',
        rootRunId: entry?.rootRunId,
        data: { jobId: entry?.jobId, wake: false, failedOpen: false, toolCalls: 1, estTurnsSaved: 1 },
      },
    ]);
  });

  it('wakes the model when the gate tool finds work, recording the gate evidence in the job session', async () => {
    s = await createSchedulerFixture();
    s.inbox.items = [{ id: 'mail-1' }];
    await s.call('rpc-client', 'cron.add', {
      name: 'inbox',
      message: 'triage the inbox',
      schedule: { kind: 'interval', everyMs: 60_000 },
      wakeGate: toolGate,
    });
    await s.clock.advance(60_000);
    await s.module.scheduler.whenIdle();
    const [entry] = await s.runs('inbox');
    expect(entry).toMatchObject({ status: 'ok', toolCalls: 1, summary: 'Echo: triage the inbox' });
    expect(entry).not.toHaveProperty('estTurnsSaved');
    expect(s.fx.runner.requests).toHaveLength(1);
    expect(s.signals.map((signal) => signal.data)).toEqual([
      { jobId: entry?.jobId, wake: true, failedOpen: false, toolCalls: 1, estTurnsSaved: 0 },
    ]);
    expect(s.trajectory).toEqual([
      {
        sessionKey: `default:rpc-client:cron:${String(entry?.jobId)}`,
        traceId: 'trace-1',
        kind: TRAJECTORY_KIND.cronWakeGate,
        ts: entry?.ts,
        data: { jobId: entry?.jobId, wake: true, durationMs: 0, toolCalls: 1, estTurnsSaved: 0 },
      },
    ]);
  });

  it('fails open when the gate tool fails: the model wakes and the signal says failedOpen', async () => {
    s = await createSchedulerFixture();
    s.inbox.fails = true;
    await s.call('rpc-client', 'cron.add', {
      name: 'inbox',
      message: 'm',
      schedule: { kind: 'interval', everyMs: 60_000 },
      wakeGate: toolGate,
    });
    await s.clock.advance(60_000);
    await s.module.scheduler.whenIdle();
    expect((await s.runs('inbox')).map((run) => run.status)).toEqual(['ok']);
    expect(s.signals.map((signal) => signal.data?.failedOpen)).toEqual([true]);
  });

  it('an events gate wakes only when the named events happened since the last fire, and force bypasses the gate', async () => {
    s = await createSchedulerFixture();
    await s.call('rpc-client', 'cron.add', {
      name: 'watch',
      message: 'look at new messages',
      schedule: { kind: 'interval', everyMs: 60_000 },
      wakeGate: { kind: 'events', events: ['message:received'], minCount: 2 },
    });
    s.emit('message:received', { agentId: 'default', sessionKey: 'default:u:c', channelId: 'c', chars: 3 });
    await s.clock.advance(60_000);
    await s.module.scheduler.whenIdle();
    await s.clock.advance(1_000);
    s.emit('message:received', { agentId: 'default', sessionKey: 'default:u:c', channelId: 'c', chars: 3 });
    s.emit('message:received', { agentId: 'default', sessionKey: 'default:u:c', channelId: 'c', chars: 3 });
    await s.clock.advance(59_000);
    await s.module.scheduler.whenIdle();
    await s.clock.advance(60_000);
    await s.module.scheduler.whenIdle();
    expect((await s.runs('watch')).map((run) => [run.status, run.toolCalls])).toEqual([
      ['skipped', 0],
      ['ok', 0],
      ['skipped', 0],
    ]);
    await s.call('rpc-client', 'cron.run', { name: 'watch' });
    await s.module.scheduler.whenIdle();
    expect((await s.runs('watch'))[0]).toMatchObject({ status: 'ok' });
    expect(s.fx.runner.requests).toHaveLength(2);
  });
});
