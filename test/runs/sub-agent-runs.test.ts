// session.spawn and session.run_status: background sub-agent runs, their durable records, events and notifications.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors.js';
import { ORPHANED_RUN_ERROR } from '../../src/store/index.js';
import { deferred } from '../sessions/scripted-runner.js';
import { callerOf, createServiceFixture, T0, type ServiceFixture } from '../sessions/service-fixture.js';

describe('sub-agent runs', () => {
  let fx: ServiceFixture;
  afterEach(async () => {
    await fx.close();
  });

  it('spawn answers at once with a running run on a sub-agent session', async () => {
    fx = createServiceFixture({ tenants: { 'rpc-client': ['acme'] } });
    const gate = deferred();
    fx.runner.script({ gate: gate.promise, response: 'summary done', tokens: { input: 40, output: 8 }, costUsd: 0.02 });
    const spawned = await fx.subAgents.spawn({
      parentKey: 'acme:alice:ws',
      task: 'summarise the thread',
      caller: callerOf('rpc-client'),
    });
    expect(spawned).toEqual({ runId: 'run-1', sessionKey: 'acme:alice:subagent:run-1', status: 'running' });
    expect(await fx.subAgents.runStatus('run-1')).toEqual({
      runId: 'run-1',
      status: 'running',
      agentId: 'default',
      task: 'summarise the thread',
      sessionKey: 'acme:alice:subagent:run-1',
      startedAt: T0,
      runtimeMs: 0,
    });
    expect(await fx.store.get('acme:alice:subagent:run-1')).toMatchObject({
      kind: 'sub-agent',
      tenantId: 'acme',
      metadata: {
        kind: 'sub-agent',
        parentKey: 'acme:alice:ws',
        runId: 'run-1',
        rootRunId: 'run-1',
        requestedBy: 'rpc-client',
      },
    });
    expect(fx.notifications).toEqual([]);

    fx.advance(2_500);
    gate.resolve();
    await fx.subAgents.whenIdle();

    const status = await fx.subAgents.runStatus('run-1');
    expect(status).toEqual({
      runId: 'run-1',
      status: 'completed',
      agentId: 'default',
      task: 'summarise the thread',
      sessionKey: 'acme:alice:subagent:run-1',
      startedAt: T0,
      completedAt: T0 + 2_500,
      runtimeMs: 2_500,
      response: 'summary done',
      tokensUsed: { input: 40, output: 8, total: 48 },
      cost: 0.02,
    });
    expect(fx.notifications).toEqual([
      {
        clientId: 'rpc-client',
        method: 'session.completed',
        params: { sessionKey: 'acme:alice:subagent:run-1', result: { ...status, finishReason: 'stop' } },
      },
    ]);
    expect(fx.runner.requests[0]).toMatchObject({
      sessionKey: 'acme:alice:subagent:run-1',
      message: 'summarise the thread',
      caller: callerOf('rpc-client'),
    });
    expect(fx.events.map((event) => event.name).filter((name) => name.startsWith('session:sub_agent'))).toEqual([
      'session:sub_agent_spawn_started',
      'session:sub_agent_spawned',
      'session:sub_agent_completed',
      'session:sub_agent_lifecycle_ended',
    ]);
    expect(fx.events.find((event) => event.name === 'session:sub_agent_completed')?.payload).toMatchObject({
      runId: 'run-1',
      status: 'completed',
      totalTokens: 48,
    });
    expect((await fx.store.history('acme:alice:subagent:run-1')).map((message) => message.content)).toEqual([
      'summarise the thread',
      'summary done',
    ]);
  });

  it("refuses a spawn under another client's session, recording nothing; a new parent key or an admin is fine", async () => {
    fx = createServiceFixture();
    await fx.store.ensure({
      sessionKey: 'default:alice:ws',
      agentId: 'default',
      tenantId: 'default',
      kind: 'dm',
      createdAt: T0,
      metadata: {},
      ownerId: 'alice',
    });
    await expect(
      fx.subAgents.spawn({ parentKey: 'default:alice:ws', task: 't', caller: callerOf('mallory') }),
    ).rejects.toThrow(
      expect.objectContaining({ kind: 'forbidden', message: 'Session default:alice:ws belongs to another client' }),
    );
    expect(await fx.runs.list({})).toEqual([]);
    expect(await fx.store.list({ kind: 'sub-agent' })).toEqual([]);
    expect(fx.events.filter((event) => event.name.startsWith('session:sub_agent'))).toEqual([]);

    const own = await fx.subAgents.spawn({
      parentKey: 'default:mallory:ws',
      task: 'mine',
      caller: callerOf('mallory'),
    });
    const byAdmin = await fx.subAgents.spawn({
      parentKey: 'default:alice:ws',
      task: 'audit',
      caller: callerOf('root', true),
    });
    await fx.subAgents.whenIdle();
    expect((await fx.store.get(own.sessionKey))?.ownerId).toBe('mallory');
    expect((await fx.store.get(byAdmin.sessionKey))?.ownerId).toBe('root');
    expect(await fx.subAgents.runStatus(byAdmin.runId, 'root')).toMatchObject({ status: 'completed' });
    await expect(fx.subAgents.runStatus(byAdmin.runId, 'mallory')).rejects.toThrow(
      expect.objectContaining({ kind: 'not_found' }),
    );
  });

  it('records a thrown turn failure as a failed run with its error and notifies it', async () => {
    fx = createServiceFixture();
    fx.runner.script({ throws: new GatewayError('upstream_failed', 'model exploded') });
    const { runId, sessionKey } = await fx.subAgents.spawn({
      parentKey: 'default:alice:ws',
      task: 't',
      caller: callerOf('rpc-client'),
    });
    await fx.subAgents.whenIdle();
    const status = await fx.subAgents.runStatus(runId);
    expect(status).toMatchObject({ status: 'failed', error: 'model exploded', completedAt: T0 });
    expect(status).not.toHaveProperty('response');
    expect(fx.notifications[0]).toEqual({
      clientId: 'rpc-client',
      method: 'session.completed',
      params: { sessionKey, result: status },
    });
  });

  it('never reports the message of an unexpected error', async () => {
    fx = createServiceFixture();
    fx.runner.script({ throws: new Error('SQLITE_BUSY at /secret/path') });
    const { runId } = await fx.subAgents.spawn({
      parentKey: 'default:alice:ws',
      task: 't',
      caller: callerOf('anyone'),
    });
    await fx.subAgents.whenIdle();
    expect(await fx.subAgents.runStatus(runId)).toMatchObject({ status: 'failed', error: 'Internal error' });
    // Every spawn has a requester now, so its outcome goes to that client only, never to every socket.
    expect(fx.notifications[0]?.clientId).toBe('anyone');
  });

  it('counts a turn that ended with an error finish reason as failed, keeping what it produced', async () => {
    fx = createServiceFixture();
    fx.runner.script(
      { finishReason: 'circuit_open', error: 'every provider is failing', response: '' },
      { finishReason: 'max_steps', response: 'partial' },
    );
    const failed = await fx.subAgents.spawn({ parentKey: 'default:alice:ws', task: 'a', caller: callerOf('anyone') });
    const completed = await fx.subAgents.spawn({
      parentKey: 'default:alice:ws',
      task: 'b',
      caller: callerOf('anyone'),
    });
    await fx.subAgents.whenIdle();
    expect(await fx.subAgents.runStatus(failed.runId)).toMatchObject({
      status: 'failed',
      error: 'every provider is failing',
      tokensUsed: { total: 15 },
    });
    expect(await fx.subAgents.runStatus(completed.runId)).toMatchObject({ status: 'completed', response: 'partial' });
    expect(await fx.subAgents.runStatus(completed.runId)).not.toHaveProperty('error');
  });

  it('a spawn from a sub-agent session joins the same run tree', async () => {
    fx = createServiceFixture();
    const first = await fx.subAgents.spawn({ parentKey: 'default:alice:ws', task: 'a', caller: callerOf('anyone') });
    await fx.subAgents.whenIdle();
    const nested = await fx.subAgents.spawn({ parentKey: first.sessionKey, task: 'b', caller: callerOf('anyone') });
    await fx.subAgents.whenIdle();
    expect(await fx.runs.get(nested.runId)).toMatchObject({ rootRunId: first.runId, parentKey: first.sessionKey });
    expect(nested.sessionKey).toBe(`default:alice:subagent:${nested.runId}`);
  });

  it('refuses a malformed parent key, an unknown run id, and spawns beyond the in-flight cap', async () => {
    fx = createServiceFixture({ options: { maxRunningSpawns: 1 } });
    await expect(fx.subAgents.spawn({ parentKey: 'alice:ws', task: 't', caller: callerOf('anyone') })).rejects.toThrow(
      expect.objectContaining({ kind: 'invalid_params', details: { param: 'parentKey' } }),
    );
    await expect(fx.subAgents.runStatus('nope')).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    const gate = deferred();
    fx.runner.script({ gate: gate.promise });
    await fx.subAgents.spawn({ parentKey: 'default:alice:ws', task: 't', caller: callerOf('anyone') });
    await expect(
      fx.subAgents.spawn({ parentKey: 'default:alice:ws', task: 't', caller: callerOf('anyone') }),
    ).rejects.toThrow(expect.objectContaining({ kind: 'rate_limited' }));
    // Bus listeners run off the emitter's stack.
    await new Promise(setImmediate);
    expect(fx.events.some((event) => event.name === 'session:sub_agent_spawn_rejected')).toBe(true);
    gate.resolve();
    await fx.subAgents.whenIdle();
    expect(
      (await fx.subAgents.spawn({ parentKey: 'default:alice:ws', task: 't', caller: callerOf('anyone') })).status,
    ).toBe('running');
  });

  it('after a restart, runs the previous process left running are reported orphaned', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-spawn-'));
    const path = join(dir, 'gateway.db');
    try {
      // The first process spawns a run whose turn never ends, then "dies" (its store is simply abandoned).
      const before = createServiceFixture({ path });
      before.runner.script({ gate: new Promise<void>(() => {}) });
      const { runId } = await before.subAgents.spawn({
        parentKey: 'default:alice:ws',
        task: 'long job',
        caller: callerOf('rpc-client'),
      });
      before.db.close();

      fx = createServiceFixture({ path });
      expect((await fx.subAgents.runStatus(runId)).status).toBe('running');
      fx.advance(60_000);
      expect(await fx.subAgents.recoverOrphanedRuns()).toBe(1);
      expect(await fx.subAgents.runStatus(runId)).toMatchObject({
        status: 'orphaned',
        error: ORPHANED_RUN_ERROR,
        completedAt: T0 + 60_000,
        runtimeMs: 60_000,
        task: 'long job',
      });
      expect(await fx.subAgents.recoverOrphanedRuns()).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('close aborts runs in flight and records them as failed', async () => {
    fx = createServiceFixture();
    fx.runner.script({ untilAborted: true, response: '' });
    const { runId } = await fx.subAgents.spawn({
      parentKey: 'default:alice:ws',
      task: 't',
      caller: callerOf('anyone'),
    });
    await fx.subAgents.close();
    expect(await fx.runs.get(runId)).toMatchObject({ status: 'failed', error: 'The turn was aborted' });
    await expect(
      fx.subAgents.spawn({ parentKey: 'default:alice:ws', task: 't', caller: callerOf('anyone') }),
    ).rejects.toThrow(expect.objectContaining({ kind: 'unavailable' }));
  });
});
