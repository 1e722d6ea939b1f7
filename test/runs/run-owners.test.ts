// Run ownership: each run records the instance executing it, that instance heartbeats it, and recovery orphans
// only the runs of instances that are gone.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLocalCoordination, createLocalInstances, type Instances } from '../../src/coordination/index.js';
import { ORPHANED_RUN_ERROR } from '../../src/store/index.js';
import { callerOf, createServiceFixture, T0, type ServiceFixture } from '../sessions/service-fixture.js';

describe('local coordination', () => {
  it('counts only the current process as alive', async () => {
    const coordination = createLocalCoordination();
    expect(await coordination.instances.isAlive(coordination.instances.currentId)).toBe(true);
    expect(await coordination.instances.isAlive('some-earlier-process')).toBe(false);
    expect(createLocalInstances().currentId).not.toBe(coordination.instances.currentId);
    expect(await coordination.locks.run('default:a:ws', async () => 'done')).toBe('done');
  });
});

describe('sub-agent run owners', () => {
  let dir: string;
  let path: string;
  const fixtures: ServiceFixture[] = [];
  const open = (instances: Instances, runHeartbeatMs?: number) => {
    const fx = createServiceFixture({
      path,
      instances,
      ...(runHeartbeatMs === undefined ? {} : { options: { runHeartbeatMs } }),
    });
    fixtures.push(fx);
    return fx;
  };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-owners-'));
    path = join(dir, 'gateway.db');
  });
  afterEach(async () => {
    for (const fx of fixtures.splice(0)) await fx.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('records this instance as the owner of a spawned run', async () => {
    const fx = open(createLocalInstances('node-a'));
    fx.runner.script({ untilAborted: true, response: '' });
    const { runId } = await fx.subAgents.spawn({
      parentKey: 'default:alice:ws',
      task: 't',
      caller: callerOf('rpc-client'),
    });
    expect(await fx.runs.get(runId)).toMatchObject({ status: 'running', ownerInstance: 'node-a', heartbeatAt: T0 });
  });

  it('does not orphan a run whose owner instance is alive: its own, or another live node', async () => {
    const nodeA = open(createLocalInstances('node-a'));
    nodeA.runner.script({ untilAborted: true, response: '' });
    const { runId } = await nodeA.subAgents.spawn({
      parentKey: 'default:alice:ws',
      task: 'long job',
      caller: callerOf('rpc-client'),
    });
    expect(await nodeA.subAgents.recoverOrphanedRuns()).toBe(0);

    // A second node on the same store that knows node-a is alive (what a shared coordination backend reports).
    const nodeB = open({ currentId: 'node-b', isAlive: async (id) => id === 'node-a' || id === 'node-b' });
    expect(await nodeB.subAgents.recoverOrphanedRuns()).toBe(0);
    expect(await nodeB.subAgents.runStatus(runId)).toMatchObject({ status: 'running' });
    expect(await nodeB.runs.get(runId)).toMatchObject({ status: 'running', completedAt: null, error: null });

    // Once node-a is gone, the same run is orphaned.
    const nodeC = open(createLocalInstances('node-c'));
    expect(await nodeC.subAgents.recoverOrphanedRuns()).toBe(1);
    expect(await nodeC.runs.get(runId)).toMatchObject({ status: 'orphaned', error: ORPHANED_RUN_ERROR });
  });

  it('heartbeats its running runs on the configured interval', async () => {
    const fx = open(createLocalInstances('node-a'), 5);
    fx.runner.script({ untilAborted: true, response: '' });
    const { runId } = await fx.subAgents.spawn({
      parentKey: 'default:alice:ws',
      task: 't',
      caller: callerOf('rpc-client'),
    });
    fx.advance(60_000);
    await vi.waitFor(async () => {
      expect((await fx.runs.get(runId))?.heartbeatAt).toBe(T0 + 60_000);
    });
  });

  it('refuses spawns past the limit even when they arrive together', async () => {
    const fx = createServiceFixture({
      path,
      instances: createLocalInstances('node-a'),
      options: { maxRunningSpawns: 2 },
    });
    fixtures.push(fx);
    fx.runner.script(
      { untilAborted: true, response: '' },
      { untilAborted: true, response: '' },
      { untilAborted: true, response: '' },
    );
    const spawns = await Promise.allSettled(
      [1, 2, 3, 4].map(() =>
        fx.subAgents.spawn({ parentKey: 'default:alice:ws', task: 't', caller: callerOf('rpc-client') }),
      ),
    );
    expect(spawns.filter((spawn) => spawn.status === 'fulfilled')).toHaveLength(2);
    expect(
      spawns.filter((spawn) => spawn.status === 'rejected').map((spawn) => spawn.status === 'rejected' && spawn.reason),
    ).toEqual([expect.objectContaining({ kind: 'rate_limited' }), expect.objectContaining({ kind: 'rate_limited' })]);
  });
});
