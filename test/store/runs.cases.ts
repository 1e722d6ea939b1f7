// The RunPort conformance suite: every backend runs these same cases against a fresh port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ORPHANED_RUN_ERROR, type RunPort, type RunRecord } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

export function runningRun(runId: string, startedAt: number, ownerInstance: string | null = 'instance-a'): RunRecord {
  return {
    runId,
    rootRunId: runId,
    kind: 'spawn',
    parentKey: 'default:alice:ws',
    sessionKey: `default:alice:subagent:${runId}`,
    agentId: 'default',
    task: 'summarise',
    status: 'running',
    requestedBy: 'rpc-client',
    startedAt,
    completedAt: null,
    response: null,
    tokensUsed: null,
    costUsd: null,
    error: null,
    ownerInstance,
    heartbeatAt: ownerInstance === null ? null : startedAt,
  };
}

const noOutcome = { response: null, tokensUsed: null, costUsd: null, error: null };

export function runPortCases(backend: string, open: () => Promise<PortFixture<RunPort>>): void {
  describe(`RunPort conformance (${backend})`, () => {
    let fixture: PortFixture<RunPort>;
    let runs: RunPort;
    beforeEach(async () => {
      fixture = await open();
      runs = fixture.port;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('creates a running run and reads it back', async () => {
      await runs.create(runningRun('run-1', 100));
      expect(await runs.get('run-1')).toEqual(runningRun('run-1', 100));
      expect(await runs.get('nope')).toBeUndefined();
    });

    it('finishes a run with its response, tokens, cost and error', async () => {
      await runs.create(runningRun('run-1', 100));
      await runs.create(runningRun('run-2', 200));
      await runs.finish('run-1', {
        status: 'completed',
        completedAt: 150,
        response: 'done',
        tokensUsed: { input: 10, output: 5, total: 15 },
        costUsd: 0.25,
        error: null,
      });
      await runs.finish('run-2', {
        status: 'failed',
        completedAt: 250,
        response: null,
        tokensUsed: null,
        costUsd: null,
        error: 'model exploded',
      });
      expect(await runs.get('run-1')).toMatchObject({
        status: 'completed',
        completedAt: 150,
        response: 'done',
        tokensUsed: { input: 10, output: 5, total: 15 },
        costUsd: 0.25,
        error: null,
      });
      expect(await runs.get('run-2')).toMatchObject({
        status: 'failed',
        completedAt: 250,
        tokensUsed: null,
        error: 'model exploded',
      });
      await expect(
        runs.finish('missing', {
          status: 'failed',
          completedAt: 1,
          response: null,
          tokensUsed: null,
          costUsd: null,
          error: 'x',
        }),
      ).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    });

    it('lists runs newest first, by status and start time', async () => {
      await runs.create(runningRun('run-1', 100));
      await runs.create(runningRun('run-2', 200));
      await runs.create(runningRun('run-3', 300));
      await runs.finish('run-2', {
        status: 'completed',
        completedAt: 210,
        response: 'ok',
        tokensUsed: null,
        costUsd: null,
        error: null,
      });
      expect((await runs.list({})).map((run) => run.runId)).toEqual(['run-3', 'run-2', 'run-1']);
      expect((await runs.list({ status: 'running' })).map((run) => run.runId)).toEqual(['run-3', 'run-1']);
      expect((await runs.list({ sinceMs: 200 })).map((run) => run.runId)).toEqual(['run-3', 'run-2']);
      expect(await runs.list({ status: 'completed', sinceMs: 250 })).toEqual([]);
      await expect(runs.list({}, AbortSignal.abort())).rejects.toThrow();
    });

    it("heartbeats only the owner's running runs", async () => {
      await runs.create(runningRun('mine', 100, 'instance-a'));
      await runs.create(runningRun('mine-done', 100, 'instance-a'));
      await runs.create(runningRun('theirs', 100, 'instance-b'));
      await runs.finish('mine-done', { status: 'completed', completedAt: 150, ...noOutcome });
      expect(await runs.heartbeat('instance-a', 500)).toBe(1);
      expect((await runs.get('mine'))?.heartbeatAt).toBe(500);
      expect((await runs.get('mine-done'))?.heartbeatAt).toBe(100);
      expect((await runs.get('theirs'))?.heartbeatAt).toBe(100);
      expect(await runs.heartbeat('instance-z', 600)).toBe(0);
    });

    it('names the owners of running runs, and orphans only the runs of the owners it is given', async () => {
      await runs.create(runningRun('dead-1', 100, 'instance-dead'));
      await runs.create(runningRun('dead-2', 110, 'instance-dead'));
      await runs.create(runningRun('live', 120, 'instance-live'));
      await runs.create(runningRun('legacy', 130, null));
      await runs.create(runningRun('done', 140, 'instance-dead'));
      await runs.finish('done', { status: 'completed', completedAt: 150, ...noOutcome });
      expect((await runs.runningOwners()).sort()).toEqual(['instance-dead', 'instance-live', null].sort());
      expect(await runs.markOrphaned(['instance-dead', null], 5_000)).toBe(3);
      expect(await runs.get('dead-1')).toMatchObject({
        status: 'orphaned',
        completedAt: 5_000,
        error: ORPHANED_RUN_ERROR,
      });
      expect(await runs.get('legacy')).toMatchObject({ status: 'orphaned', error: ORPHANED_RUN_ERROR });
      expect(await runs.get('live')).toMatchObject({ status: 'running', completedAt: null, error: null });
      expect(await runs.get('done')).toMatchObject({ status: 'completed', completedAt: 150 });
      expect(await runs.runningOwners()).toEqual(['instance-live']);
      expect(await runs.markOrphaned(['instance-dead'], 6_000)).toBe(0);
      expect(await runs.markOrphaned([], 6_000)).toBe(0);
    });
  });
}
