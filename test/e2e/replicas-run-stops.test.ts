// Two gateways sharing one Redis and one database: a run tree one of them runs is stopped by run.kill answered by the
// other, and an A2A task is cancelled, followed to its end and read on the replica that does not run it.
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSse } from '../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { TOKENS, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { startSharedReplicas, type SharedReplicas } from '../support/shared-replicas.js';
import { cardUrlOf, helperGatewayOptions, sdkClientOf, sendParams } from '../a2a/a2a-client.js';

describe('e2e: run stops and A2A tasks across two replicas', () => {
  let replicas: SharedReplicas;
  let llm: FakeLlm;
  let a: Harness;
  let b: Harness;

  beforeAll(async () => {
    [replicas, llm] = await Promise.all([startSharedReplicas(), startFakeLlm({ models: ['fake-model'] })]);
    const options = { ...helperGatewayOptions(llm.baseUrl), a2a: { expose: ['helper'] } };
    a = await replicas.start(options);
    b = await replicas.start(options);
  }, 60_000);
  afterAll(async () => {
    await replicas?.close();
    await llm?.close();
  });
  beforeEach(() => llm.reset());

  /** A task started on A whose model call is held until the returned release is called. */
  async function heldTaskOnA(text: string) {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    llm.script({ text: `Answer to ${text}.`, heldUntil: held });
    const before = llm.chatRequests().length;
    const onA = await sdkClientOf(cardUrlOf(a.url, 'helper'), TOKENS.rpc);
    const task = await onA.sendMessage(sendParams(text, true));
    if (!('id' in task)) throw new Error('expected a task');
    await expect.poll(() => llm.chatRequests().length).toBe(before + 1);
    return { taskId: task.id, release };
  }

  const onB = () => sdkClientOf(cardUrlOf(b.url, 'helper'), TOKENS.rpc);

  it('stops with run.kill on B the run tree A runs: A aborts it and records it revoked', async () => {
    const events = await openSse(`${a.url}/api/events?token=${TOKENS.admin}`);
    const { taskId, release } = await heldTaskOnA('kill me');
    try {
      const killed = await callRpc(b.url, TOKENS.admin, 'run.kill', { runId: taskId });
      expect(killed.result).toEqual({ runId: taskId, status: 'revoked' });
      // Only the replica running a tree emits its kill.
      const notice = (await events.until((frame) => frame.event === 'run:killed')).at(-1);
      expect(JSON.parse(notice?.data ?? '{}')).toMatchObject({ runId: taskId, rootRunId: taskId, runs: 1 });
      // A's turn was aborted, so its task ends canceled, as read on either replica.
      const client = await onB();
      await expect
        .poll(async () => (await client.getTask({ tenant: '', id: taskId })).status?.state)
        .toBe(TaskState.TASK_STATE_CANCELED);
    } finally {
      release();
      events.close();
    }
  });

  it('cancels on B an A2A task that runs on A, and answers the canceled task', async () => {
    const { taskId, release } = await heldTaskOnA('cancel me');
    try {
      // Another token finds no such task on B, so cannot cancel nor follow it, and the run goes on.
      const stranger = await sdkClientOf(cardUrlOf(b.url, 'helper'), TOKENS.admin);
      await expect(stranger.cancelTask({ tenant: '', id: taskId, metadata: undefined })).rejects.toThrow(/not found/i);
      await expect(stranger.resubscribeTask({ tenant: '', id: taskId }).next()).rejects.toThrow(/not found/i);
      expect((await callRpc(a.url, TOKENS.admin, 'run.get', { runId: taskId })).result).toMatchObject({
        status: 'running',
      });
      const canceled = await (await onB()).cancelTask({ tenant: '', id: taskId, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const run = await callRpc(a.url, TOKENS.admin, 'run.get', { runId: taskId });
      expect(run.result).toMatchObject({ status: 'revoked' });
    } finally {
      release();
    }
  });

  it('follows on B a task that runs on A to its end: the task, then its answer and its completed status', async () => {
    const { taskId, release } = await heldTaskOnA('follow me');
    const seen: StreamResponse[] = [];
    const following = (async () => {
      for await (const event of (await onB()).resubscribeTask({ tenant: '', id: taskId })) seen.push(event);
    })();
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    expect(seen[0]?.payload).toMatchObject({ $case: 'task', value: { id: taskId } });
    release();
    await following;
    const cases = seen.map((event) => event.payload?.$case);
    expect(cases.slice(-2)).toEqual(['artifactUpdate', 'statusUpdate']);
    const artifact = seen.at(-2)?.payload;
    if (artifact?.$case !== 'artifactUpdate') throw new Error('expected an artifact update');
    expect(artifact.value.artifact?.parts[0]?.content).toEqual({ $case: 'text', value: 'Answer to follow me.' });
    const final = seen.at(-1)?.payload;
    if (final?.$case !== 'statusUpdate') throw new Error('expected a status update');
    expect(final.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('reads on B a task whose run just ended on A as still running, and as failed once A never recorded its end', async () => {
    const { taskId, release } = await heldTaskOnA('read me');
    try {
      // As the database is between A recording its run's end and A recording the task's: B must not call it failed.
      const db = new Database(replicas.databasePath);
      const endRun = db.prepare('UPDATE runs SET status = ?, completed_at = ? WHERE run_id = ?');
      try {
        endRun.run('completed', Date.now(), taskId);
        const client = await onB();
        expect((await client.getTask({ tenant: '', id: taskId })).status?.state).toBe(TaskState.TASK_STATE_WORKING);
        // A minute later the task's end was never written: its replica went away in between.
        endRun.run('completed', Date.now() - 61_000, taskId);
        const left = await client.getTask({ tenant: '', id: taskId });
        expect(left.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      } finally {
        db.close();
      }
    } finally {
      release();
    }
  });
});
