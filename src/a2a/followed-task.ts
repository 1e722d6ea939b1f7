// A task another replica runs, followed through the database: SubscribeToTask and CancelTask answered on any replica
// read its changes as that replica writes them, every FOLLOW_POLL_MS, until it is terminal.
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { setTimeout as delay } from 'node:timers/promises';
import { isTerminal, type StoredTask } from './task-store.js';

/** How often a task running on another replica is read again. */
export const FOLLOW_POLL_MS = 250;
/** How long CancelTask answered away from the task's replica waits for that replica to record the cancel. */
export const CANCEL_RECORDED_WAIT_MS = 2_000;

const sameStatus = (a: StoredTask, b: StoredTask) =>
  a.task.status?.state === b.task.status?.state && a.task.status?.timestamp === b.task.status?.timestamp;

/** Each change of the task's status after `from`, until it is terminal or `signal` aborts (then it just ends). */
export async function* storedTaskChanges(
  from: StoredTask,
  read: () => Promise<StoredTask>,
  signal: AbortSignal,
  pollMs = FOLLOW_POLL_MS,
): AsyncGenerator<StoredTask, void, undefined> {
  let last = from;
  while (!isTerminal(last.task.status?.state)) {
    try {
      await delay(pollMs, undefined, { signal });
    } catch {
      return;
    }
    const next = await read();
    if (sameStatus(next, last)) continue;
    last = next;
    yield next;
  }
}

/**
 * The stream events of a followed task's changes: each status change, and a completed task's artifacts whole just
 * before its final status (the chunks were streamed on the replica that ran it).
 */
export async function* followedTaskEvents(changes: AsyncIterable<StoredTask>): AsyncGenerator<StreamResponse> {
  for await (const { task } of changes) {
    const { id: taskId, contextId } = task;
    if (task.status?.state === TaskState.TASK_STATE_COMPLETED) {
      for (const artifact of task.artifacts) {
        yield {
          payload: {
            $case: 'artifactUpdate',
            value: { taskId, contextId, artifact, append: false, lastChunk: true, metadata: undefined },
          },
        };
      }
    }
    yield {
      payload: { $case: 'statusUpdate', value: { taskId, contextId, status: task.status, metadata: undefined } },
    };
  }
}
