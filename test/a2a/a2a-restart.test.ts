// A2A tasks outlive the process that ran them: after a crash and a restart on the same database, GetTask and ListTasks
// find the finished task with its answer, only for its owner, and a task that was waiting when the process went
// away reads failed, naming why, instead of working forever.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, TOKENS, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { cardUrlOf, helperGatewayOptions, sdkClientOf, sendParams } from './a2a-client.js';

let llm: FakeLlm;
let dir: string;
const cleanups: (() => Promise<unknown>)[] = [];
const everyTask = {
  tenant: '',
  contextId: '',
  status: TaskState.TASK_STATE_UNSPECIFIED,
  pageSize: 10,
  pageToken: '',
  statusTimestampAfter: undefined,
};

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  dir = await mkdtemp(join(tmpdir(), 'agent-gateway-a2a-restart-'));
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await llm?.close();
  await rm(dir, { recursive: true, force: true });
});

const options = (): HarnessOptions => ({ ...helperGatewayOptions(llm.baseUrl), a2a: { expose: ['helper'] } });

async function started(databasePath?: string): Promise<Harness> {
  const harness = await startGateway({
    ...options(),
    ...(databasePath === undefined ? {} : { sharedDatabasePath: databasePath }),
  });
  cleanups.push(() => harness.close());
  return harness;
}

describe('A2A tasks across a restart', () => {
  it('finds the finished task after a crash and reads the one left waiting as failed', async () => {
    const first = await started();
    const client = await sdkClientOf(cardUrlOf(first.url, 'helper'), TOKENS.rpc);
    llm.script({ text: 'Answered before the crash' });
    const finished = await client.sendMessage(sendParams('first question'));
    if (!('id' in finished)) throw new Error('expected a task');
    llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] });
    const waiting = await client.sendMessage(sendParams('what time is it?'));
    if (!('id' in waiting)) throw new Error('expected a task');
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // ListTasks answers once every change so far is written: the database on disk now holds both tasks.
    expect((await client.listTasks(everyTask)).tasks).toHaveLength(2);

    // A crash: the database as it is on disk while the first process still waits; the first then goes away.
    const crashedDb = join(dir, 'gateway.db');
    const source = new Database(first.paths.databasePath, { readonly: true });
    await source.backup(crashedDb);
    source.close();
    await first.close();

    const restarted = await started(crashedDb);
    const again = await sdkClientOf(cardUrlOf(restarted.url, 'helper'), TOKENS.rpc);
    const found = await again.getTask({ tenant: '', id: finished.id });
    expect(found.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(found.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'Answered before the crash' });
    expect(found.history[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'first question' });

    const left = await again.getTask({ tenant: '', id: waiting.id });
    expect(left.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(left.status?.message?.parts[0]?.content).toEqual({
      $case: 'text',
      value: expect.stringMatching(/run ended orphaned .*gateway stopped while it ran/),
    });
    const listed = await again.listTasks(everyTask);
    expect(listed.tasks.map((task) => [task.id, task.status?.state])).toEqual([
      [waiting.id, TaskState.TASK_STATE_FAILED],
      [finished.id, TaskState.TASK_STATE_COMPLETED],
    ]);

    // Another token does not find them after the restart either.
    const stranger = await sdkClientOf(cardUrlOf(restarted.url, 'helper'), TOKENS.admin);
    await expect(stranger.getTask({ tenant: '', id: finished.id })).rejects.toThrow(/not found/i);
  });
});
