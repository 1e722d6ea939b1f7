// The A2A tasks of this process: each with its owning token and agent, found only by that token at that agent,
// listed newest update first with opaque cursors, and bounded (a2a.limits.maxTasksKept, finished ones dropped first).
import { TaskState, type Task } from '@a2a-js/sdk';
import { invalidParams } from '../errors.js';

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
  put(stored: StoredTask): void;
  /** The task if `ownerId` owns it at `agentId`; another token's or agent's task is not found. */
  get(taskId: string, ownerId: string, agentId: string): StoredTask | undefined;
  list(ownerId: string, agentId: string, query: TaskQuery): TaskPage;
}

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

export function isTerminal(state: TaskState | undefined): boolean {
  return state !== undefined && TERMINAL.has(state);
}

const encodeCursor = (stored: StoredTask) =>
  Buffer.from(JSON.stringify([stored.updatedAt, stored.task.id])).toString('base64url');

function decodeCursor(token: string): [number, string] {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && typeof parsed[0] === 'number' && typeof parsed[1] === 'string')
      return [parsed[0], parsed[1]];
  } catch {
    // Falls through to the refusal below.
  }
  throw invalidParams('pageToken is not one this server gave out', 'pageToken');
}

/** Newest update first, then task id descending: a total order the cursor can resume after. */
const isBefore = (a: StoredTask, b: StoredTask) =>
  a.updatedAt !== b.updatedAt ? a.updatedAt > b.updatedAt : a.task.id > b.task.id;

export function createTaskStore(maxTasksKept: () => number): TaskStore {
  const tasks = new Map<string, StoredTask>();

  function evict(): void {
    const excess = tasks.size - maxTasksKept();
    if (excess <= 0) return;
    // Map order is insertion order: the oldest tasks come first; finished ones go before running ones.
    const finished = [...tasks.values()].filter((stored) => isTerminal(stored.task.status?.state));
    const victims = [...finished, ...[...tasks.values()].filter((stored) => !finished.includes(stored))];
    for (const stored of victims.slice(0, excess)) tasks.delete(stored.task.id);
  }

  return {
    put(stored) {
      tasks.set(stored.task.id, stored);
      evict();
    },
    get(taskId, ownerId, agentId) {
      const stored = tasks.get(taskId);
      return stored !== undefined && stored.ownerId === ownerId && stored.agentId === agentId ? stored : undefined;
    },
    list(ownerId, agentId, query) {
      const after = query.pageToken === undefined || query.pageToken === '' ? undefined : decodeCursor(query.pageToken);
      const matching = [...tasks.values()]
        .filter(
          (stored) =>
            stored.ownerId === ownerId &&
            stored.agentId === agentId &&
            (query.contextId === undefined || stored.task.contextId === query.contextId) &&
            (query.state === undefined || stored.task.status?.state === query.state) &&
            (query.updatedAfter === undefined || stored.updatedAt > query.updatedAfter),
        )
        .sort((a, b) => (isBefore(a, b) ? -1 : 1));
      const cursor = after === undefined ? undefined : { updatedAt: after[0], id: after[1] };
      const rest =
        cursor === undefined
          ? matching
          : matching.filter(
              (stored) =>
                stored.updatedAt < cursor.updatedAt ||
                (stored.updatedAt === cursor.updatedAt && stored.task.id < cursor.id),
            );
      const page = rest.slice(0, query.pageSize);
      const last = page.at(-1);
      return {
        tasks: page,
        nextPageToken: last !== undefined && rest.length > page.length ? encodeCursor(last) : '',
        totalSize: matching.length,
      };
    },
  };
}
