// runControl as the scheduler and approvals use it (RunLifecycle.startRun, DenialBreaker.tripDenialBreaker), on a real
// SQLite run table and the real obs stack: the denial breaker, a resumed tree, and the fleet autonomy block they feed.
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalInstances } from '../../src/coordination/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createRunControl, type RunControl, type StartRunInput } from '../../src/runs/index.js';
import { createSqliteRunPort } from '../../src/store/sqlite/index.js';
import type { RunPort } from '../../src/store/index.js';
import { delivered, startObs, type ObsStack } from '../obs/support.js';

const cronFire = (runId: string, rootRunId = runId): StartRunInput => ({
  runId,
  rootRunId,
  kind: 'cron',
  agentId: 'default',
  sessionKey: `default:cron:job-1:${runId}`,
  task: 'nightly digest',
  requestedBy: null,
});

describe('run control', () => {
  let stack: ObsStack;
  let runs: RunPort;
  let control: RunControl;
  afterEach(async () => {
    control.close();
    await stack.close();
  });

  function start(instanceId = 'instance-a') {
    stack = startObs(':memory:', { hasDurableRuns: true });
    runs = createSqliteRunPort(stack.db);
    control = createRunControl({
      runs,
      events: stack.events,
      signals: stack.obs.signals,
      instances: createLocalInstances(instanceId),
      now: () => stack.clock.now,
      log: createLogger({ level: 'silent' }),
      runHeartbeatMs: 30_000,
    });
  }

  const signalRows = async () => {
    await delivered();
    await stack.obs.flush();
    return stack.db
      .prepare(
        "SELECT kind, root_run_id AS rootRunId, agent_id AS agentId, severity, data FROM health_signals WHERE kind LIKE 'autonomy.%' ORDER BY id",
      )
      .all();
  };

  it('startRun records a running cron run owned by this instance; finish records its outcome once', async () => {
    start();
    const run = await control.startRun(cronFire('fire-1'));
    expect(run.signal.aborted).toBe(false);
    expect(await runs.get('fire-1')).toMatchObject({
      kind: 'cron',
      status: 'running',
      rootRunId: 'fire-1',
      parentKey: null,
      ownerInstance: 'instance-a',
    });
    stack.clock.now += 500;
    await run.finish({
      status: 'completed',
      response: 'digest sent',
      tokensUsed: { input: 3, output: 2, total: 5 },
      costUsd: 0.01,
    });
    await run.finish({ status: 'failed', error: 'late' });
    expect(await runs.get('fire-1')).toMatchObject({
      status: 'completed',
      response: 'digest sent',
      completedAt: stack.clock.now,
      costUsd: 0.01,
      error: null,
    });
  });

  it('tripDenialBreaker aborts every live run of the tree, which end completed, and records one denial-breaker signal', async () => {
    start();
    const root = await control.startRun(cronFire('fire-1'));
    const child = await control.startRun({
      ...cronFire('child-1', 'fire-1'),
      kind: 'spawn',
      parentKey: 'default:cron:job-1:fire-1',
    });
    const other = await control.startRun(cronFire('fire-2'));

    await control.tripDenialBreaker('fire-1', { agentId: 'default', consecutiveDenials: 3 });
    await control.tripDenialBreaker('fire-1', { agentId: 'default', consecutiveDenials: 4 });
    expect([root.signal.aborted, child.signal.aborted, other.signal.aborted]).toEqual([true, true, false]);
    // While the tree is stopped it takes no new runs.
    await expect(control.startRun({ ...cronFire('child-2', 'fire-1'), kind: 'spawn' })).rejects.toThrow(
      expect.objectContaining({ kind: 'conflict' }),
    );

    await child.finish({ status: 'failed', error: 'The turn ended with aborted' });
    await root.finish({ status: 'failed', error: 'The turn ended with aborted' });
    await other.finish({ status: 'completed' });
    const breakerError = 'The capability-denial breaker stopped the run tree after 3 consecutive denials';
    expect(await runs.get('fire-1')).toMatchObject({ status: 'completed', error: breakerError });
    expect(await runs.get('child-1')).toMatchObject({ status: 'completed', error: breakerError });
    expect(await runs.get('fire-2')).toMatchObject({ status: 'completed', error: null });
    expect(await signalRows()).toEqual([
      {
        kind: 'autonomy.denial_breaker',
        rootRunId: 'fire-1',
        agentId: 'default',
        severity: 'warning',
        data: JSON.stringify({ consecutiveDenials: 3, runs: 2 }),
      },
    ]);

    const fleet = await stack.obs.fleetHealth({});
    // Never a session end reason and never a degraded run: counted only by its own signal.
    expect(fleet.autonomy).toMatchObject({
      runs: { total: 3, degraded: 0 },
      denialBreakerTrips: 1,
      killed: 0,
      revoked: 0,
      worstRootRunId: 'fire-1',
    });
    expect(fleet.findings.map((finding) => finding.code)).toContain('autonomy_denial_breaker');
  });

  it('a run joining a tree a restart left orphaned records resumed, once per tree', async () => {
    start('instance-b');
    await runs.create({
      runId: 'old-root',
      rootRunId: 'old-root',
      kind: 'cron',
      parentKey: null,
      sessionKey: 'default:cron:job-1:old',
      agentId: 'default',
      task: 't',
      status: 'running',
      requestedBy: null,
      startedAt: stack.clock.now - 1_000,
      completedAt: null,
      response: null,
      tokensUsed: null,
      costUsd: null,
      error: null,
      ownerInstance: 'instance-gone',
      heartbeatAt: stack.clock.now - 1_000,
    });
    expect(await runs.markOrphaned(['instance-gone'], stack.clock.now)).toBe(1);

    const first = await control.startRun({ ...cronFire('again-1', 'old-root'), kind: 'spawn' });
    const second = await control.startRun({ ...cronFire('again-2', 'old-root'), kind: 'spawn' });
    const fresh = await control.startRun(cronFire('new-root'));
    for (const run of [first, second, fresh]) await run.finish({ status: 'completed' });

    expect(await signalRows()).toEqual([
      {
        kind: 'autonomy.resumed',
        rootRunId: 'old-root',
        agentId: 'default',
        severity: 'info',
        data: JSON.stringify({ runId: 'again-1' }),
      },
    ]);
    expect((await stack.obs.fleetHealth({})).autonomy).toMatchObject({
      runs: { total: 4, degraded: 1 },
      orphaned: 1,
      resumed: 1,
      worstRootRunId: 'old-root',
    });
  });

  it('a kill escalates a revoke under way; repeated stops and a stop after the breaker record nothing more', async () => {
    start();
    const killed: string[] = [];
    stack.events.subscribe((event) => void killed.push(event.name));
    const run = await control.startRun(cronFire('fire-1'));
    expect(await control.revoke('fire-1', 'admin')).toEqual({ runId: 'fire-1', status: 'revoked' });
    expect(run.signal.aborted).toBe(false);
    await control.revoke('fire-1', 'admin');
    await control.kill('fire-1', 'admin');
    expect(run.signal.aborted).toBe(true);
    await control.kill('fire-1', 'admin');
    const tripped = await control.startRun(cronFire('fire-2'));
    await control.tripDenialBreaker('fire-2', { agentId: 'default', consecutiveDenials: 3 });
    expect(await control.kill('fire-2', 'admin')).toEqual({ runId: 'fire-2', status: 'running' });
    await run.finish({ status: 'failed', error: 'aborted' });
    await tripped.finish({ status: 'failed', error: 'aborted' });
    await delivered();
    expect(killed.filter((name) => name.startsWith('run:'))).toEqual(['run:revoked', 'run:killed']);
    expect(await runs.get('fire-1')).toMatchObject({ status: 'revoked', error: 'The run was killed (run.kill)' });
    expect(await runs.get('fire-2')).toMatchObject({ status: 'completed' });
    expect((await signalRows()).map((row) => (row as { kind: string }).kind)).toEqual([
      'autonomy.killed',
      'autonomy.denial_breaker',
    ]);
  });

  it('kill and revoke of an unknown run answer not_found naming runId; of a finished run they change nothing', async () => {
    start();
    await expect(control.kill('nope', 'admin')).rejects.toThrow(
      expect.objectContaining({ kind: 'not_found', details: { param: 'runId' } }),
    );
    await expect(control.revoke('nope', 'admin')).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    const run = await control.startRun(cronFire('fire-1'));
    await run.finish({ status: 'completed' });
    expect(await control.kill('fire-1', 'admin')).toEqual({ runId: 'fire-1', status: 'completed' });
    expect(await control.revoke('fire-1', 'admin')).toEqual({ runId: 'fire-1', status: 'completed' });
    expect(await signalRows()).toEqual([]);
  });
});
