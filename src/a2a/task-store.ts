// The A2A tasks: each with its owning token and agent, found only by that token at that agent, listed newest update
// first with opaque cursors. Kept in the database (after a restart and on every replica); a change is readable in this
// process at once and written behind in order. A task whose run ended without it (the process stopped) reads failed.
import { TaskState, type Task } from '@a2a-js/sdk';
import type { Logger } from 'pino';
import { invalidParams } from '../errors.js';
import type { A2aTaskPort, A2aTaskRecord, RunStatus } from '../store/index.js';
import { agentMessage } from './parts.js';

export interface StoredTask {
  task: Task;
  ownerId: string;
  agentId: string;
  /** Epoch ms of the last status change; the list order and cursor key. */
  updatedAt: number;
}

export interface TaskQuery {
  contextId?: string;
  state?: TaskState;
  /** Only tasks whose last status change is later than this (epoch ms). */
  updatedAfter?: number;
  pageSize: number;
  pageToken?: string;
}

export interface TaskPage {
  tasks: StoredTask[];
  nextPageToken: string;
  totalSize: number;
}

export interface TaskStore {
  /** Records the task as it is now: readable here at once, written to the database behind, in order. */
  put(stored: StoredTask): void;
  /** The task if `ownerId` owns it at `agentId`; another token's or agent's task is not found. */
  get(taskId: string, ownerId: string, agentId: string): Promise<StoredTask | undefined>;
  list(ownerId: string, agentId: string, query: TaskQuery): Promise<TaskPage>;
  /** Resolves once every change recorded so far is written (or its write failed and was logged). */
  flush(): Promise<void>;
}

export interface TaskStoreDeps {
  port: A2aTaskPort;
  /** The status and end of the task's run (run id = task id); undefined when no run is recorded. */
  runEnd: (runId: string) => Promise<{ status: RunStatus; completedAt: number | null } | undefined>;
  now: () => number;
  /** a2a.limits.maxTasksKept, read live: finished tasks past the newest this many are deleted. */
  maxTasksKept: () => number;
  log: Logger;
}

/** How long after its run ended a task may still read running: its replica records the task's end right after. */
export const TASK_END_GRACE_MS = 60_000;

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

export function isTerminal(state: TaskState | undefined): boolean {
  return state !== undefined && TERMINAL.has(state);
}

/** Finished tasks written between two prunes: the prune sorts every finished task, so it runs now and then. */
const PRUNE_EVERY_FINISHED = 100;

const encodeCursor = (stored: StoredTask) =>
  Buffer.from(JSON.stringify([stored.updatedAt, stored.task.id])).toString('base64url');

function decodeCursor(token: string): { updatedAt: number; taskId: string } {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && typeof parsed[0] === 'number' && typeof parsed[1] === 'string')
      return { updatedAt: parsed[0], taskId: parsed[1] };
  } catch {
    // Falls through to the refusal below.
  }
  throw invalidParams('pageToken is not one this server gave out', 'pageToken');
}

const toRecord = ({ task, ownerId, agentId, updatedAt }: StoredTask): A2aTaskRecord => {
  const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  return {
    taskId: task.id,
    ownerId,
    agentId,
    contextId: task.contextId,
    state,
    updatedAt,
    isTerminal: isTerminal(state),
    body: JSON.stringify(task),
  };
};

const fromRecord = (record: A2aTaskRecord): StoredTask => ({
  // The body is a Task this store wrote (JSON of text and data parts only).
  task: JSON.parse(record.body) as Task,
  ownerId: record.ownerId,
  agentId: record.agentId,
  updatedAt: record.updatedAt,
});

export function createTaskStore(deps: TaskStoreDeps): TaskStore {
  const { port, log } = deps;
  /** Changes not yet written: what this process reads before the database has them. */
  const unwritten = new Map<string, StoredTask>();
  let writes: Promise<void> = Promise.resolve();
  let finishedSincePrune = 0;

  async function write(stored: StoredTask, record: A2aTaskRecord): Promise<void> {
    try {
      await port.put(record);
      if (record.isTerminal && ++finishedSincePrune >= PRUNE_EVERY_FINISHED) {
        finishedSincePrune = 0;
        await port.pruneFinished(deps.maxTasksKept());
      }
    } catch (error) {
      log.error({ err: error, taskId: record.taskId }, 'an A2A task could not be written; it reads as before');
    } finally {
      if (unwritten.get(record.taskId) === stored) unwritten.delete(record.taskId);
    }
  }

  /**
   * A running task whose run has ended without it: the process that ran it stopped before it could record its end.
   * A run that ended moments ago is not yet that: its replica records the task's end right after the run's.
   */
  async function settle(stored: StoredTask): Promise<StoredTask> {
    const { task } = stored;
    if (isTerminal(task.status?.state)) return stored;
    const run = await deps.runEnd(task.id);
    if (run === undefined || run.status === 'running') return stored;
    const isUnrecorded =
      run.status === 'orphaned' || (run.completedAt !== null && deps.now() - run.completedAt > TASK_END_GRACE_MS);
    if (!isUnrecorded) return stored;
    const { status } = run;
    const text = `The task's run ended ${status} before the task recorded its end (the gateway stopped while it ran)`;
    const failed: StoredTask = {
      ...stored,
      task: {
        ...task,
        status: {
          state: TaskState.TASK_STATE_FAILED,
          message: agentMessage(`${task.id}-ended`, task.id, task.contextId, text),
          timestamp: task.status?.timestamp ?? new Date(stored.updatedAt).toISOString(),
        },
      },
    };
    store.put(failed);
    return failed;
  }

  const store: TaskStore = {
    put(stored) {
      const snapshot = { ...stored };
      const record = toRecord(snapshot);
      unwritten.set(stored.task.id, snapshot);
      writes = writes.then(() => write(snapshot, record));
    },
    async get(taskId, ownerId, agentId) {
      const held = unwritten.get(taskId);
      if (held !== undefined) return held.ownerId === ownerId && held.agentId === agentId ? held : undefined;
      const record = await port.get(taskId, ownerId, agentId);
      return record === undefined ? undefined : settle(fromRecord(record));
    },
    async list(ownerId, agentId, query) {
      const after = query.pageToken === undefined || query.pageToken === '' ? undefined : decodeCursor(query.pageToken);
      await writes;
      // One more than the page tells whether a next page exists.
      const { records, total } = await port.list(ownerId, agentId, {
        limit: query.pageSize + 1,
        ...(query.contextId === undefined ? {} : { contextId: query.contextId }),
        ...(query.state === undefined ? {} : { state: query.state }),
        ...(query.updatedAfter === undefined ? {} : { updatedAfter: query.updatedAfter }),
        ...(after === undefined ? {} : { after }),
      });
      const page = await Promise.all(records.slice(0, query.pageSize).map((record) => settle(fromRecord(record))));
      const last = page.at(-1);
      return {
        tasks: page,
        nextPageToken: last !== undefined && records.length > page.length ? encodeCursor(last) : '',
        totalSize: total,
      };
    },
    flush: () => writes,
  };
  return store;
}
