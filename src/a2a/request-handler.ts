// The A2A methods of one exposed agent for one caller (the SDK's A2ARequestHandler, which its JSON-RPC transport
// dispatches to): SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask.
import { TaskState, type AgentCard, type ListTasksResponse, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import {
  a2aPushNotSupported,
  a2aTaskNotCancelable,
  a2aTaskNotFound,
  a2aUnsupported,
  invalidParams,
} from '../errors.js';
import type { Caller } from '../server/types.js';
import { CANCEL_RECORDED_WAIT_MS, followedTaskEvents, storedTaskChanges } from './followed-task.js';
import { messageText, type MessageLimits } from './parts.js';
import { isTerminal, type StoredTask, type TaskStore } from './task-store.js';
import type { TaskRunner } from './task-runner.js';
import { toA2aError } from './wire-errors.js';

export interface HandlerLimits extends MessageLimits {
  maxPageSize: number;
}

export interface HandlerDeps {
  agentId: string;
  caller: Caller;
  card: AgentCard;
  store: TaskStore;
  runner: TaskRunner;
  limits: HandlerLimits;
  /** Aborted when the client hangs up: its streams end. */
  hangUp: AbortSignal;
}

/** `task` with at most the `historyLength` newest messages (0: none; absent: all), and artifacts only when asked. */
function view(task: Task, historyLength: number | undefined, withArtifacts = true): Task {
  const copy = structuredClone(task);
  if (historyLength !== undefined) copy.history = historyLength <= 0 ? [] : copy.history.slice(-historyLength);
  if (!withArtifacts) copy.artifacts = [];
  return copy;
}

/** A queue of one task's events, read as an async generator until the task is terminal or the client hangs up. */
function eventQueue(hangUp: AbortSignal) {
  const queued: StreamResponse[] = [];
  let wake: (() => void) | undefined;
  const push = (event: StreamResponse) => {
    queued.push(event);
    wake?.();
  };
  const onHangUp = () => wake?.();
  hangUp.addEventListener('abort', onHangUp, { once: true });
  async function* drain(): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      while (!hangUp.aborted) {
        const event = queued.shift();
        if (event === undefined) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        yield event;
        const { payload } = event;
        const state =
          payload?.$case === 'statusUpdate'
            ? payload.value.status?.state
            : payload?.$case === 'task'
              ? payload.value.status?.state
              : undefined;
        if (isTerminal(state)) return;
      }
    } finally {
      hangUp.removeEventListener('abort', onHangUp);
    }
  }
  return { push, drain };
}

export function createRequestHandler(deps: HandlerDeps): A2ARequestHandler {
  const { agentId, caller, store, runner, limits } = deps;

  async function owned(taskId: string): Promise<StoredTask> {
    if (taskId.trim() === '') throw invalidParams('id is required', 'id');
    const stored = await store.get(taskId, caller.clientId, agentId);
    if (stored === undefined) throw a2aTaskNotFound(taskId);
    return stored;
  }

  async function startTask(
    params: Parameters<A2ARequestHandler['sendMessage']>[0],
    listener?: (e: StreamResponse) => void,
  ) {
    const { message } = params;
    if (message === undefined || message.messageId === '')
      throw invalidParams('message.messageId is required', 'message');
    // Input for a running task comes from the operator (approvals); a task takes no second message.
    if (message.taskId !== '') throw a2aUnsupported('Continuing a task with another message');
    const text = messageText(message, limits);
    return runner.start({
      agentId,
      caller,
      text,
      userMessage: message,
      ...(listener === undefined ? {} : { listener }),
    });
  }

  const guard =
    <Args extends unknown[], R>(fn: (...args: Args) => Promise<R>) =>
    async (...args: Args): Promise<R> => {
      try {
        return await fn(...args);
      } catch (error) {
        throw toA2aError(error);
      }
    };

  const guardStream = <Args extends unknown[]>(
    fn: (...args: Args) => AsyncGenerator<StreamResponse, void, undefined>,
  ) =>
    async function* guarded(...args: Args): AsyncGenerator<StreamResponse, void, undefined> {
      try {
        yield* fn(...args);
      } catch (error) {
        throw toA2aError(error);
      }
    };

  const refusePush = guard(async (): Promise<never> => {
    throw a2aPushNotSupported();
  });

  return {
    getAgentCard: async () => deps.card,
    getAuthenticatedExtendedAgentCard: async () => deps.card,

    sendMessage: guard(async (params) => {
      const stored = await startTask(params);
      if (params.configuration?.returnImmediately !== true) await runner.settled(stored.task.id);
      return view(stored.task, params.configuration?.historyLength);
    }),

    sendMessageStream: guardStream(async function* sendStream(params) {
      const queue = eventQueue(deps.hangUp);
      await startTask(params, queue.push);
      yield* queue.drain();
    }),

    getTask: guard(async (params) => view((await owned(params.id)).task, params.historyLength)),

    listTasks: guard(async (params): Promise<ListTasksResponse> => {
      const requested = params.pageSize ?? limits.maxPageSize;
      if (requested < 0) throw invalidParams('pageSize must not be negative', 'pageSize');
      const pageSize = Math.min(requested === 0 ? limits.maxPageSize : requested, limits.maxPageSize);
      const after = params.statusTimestampAfter === undefined ? undefined : Date.parse(params.statusTimestampAfter);
      if (after !== undefined && Number.isNaN(after))
        throw invalidParams('statusTimestampAfter is not a timestamp', 'statusTimestampAfter');
      const page = await store.list(caller.clientId, agentId, {
        pageSize,
        ...(params.contextId === '' ? {} : { contextId: params.contextId }),
        ...(params.status === TaskState.TASK_STATE_UNSPECIFIED ? {} : { state: params.status }),
        ...(after === undefined ? {} : { updatedAfter: after }),
        ...(params.pageToken === '' ? {} : { pageToken: params.pageToken }),
      });
      return {
        tasks: page.tasks.map((stored) => view(stored.task, params.historyLength, params.includeArtifacts === true)),
        nextPageToken: page.nextPageToken,
        pageSize,
        totalSize: page.totalSize,
      };
    }),

    cancelTask: guard(async (params) => {
      const stored = await owned(params.id);
      const state = stored.task.status?.state;
      if (isTerminal(state) || !(await runner.cancel(stored.task.id, caller.clientId)))
        throw a2aTaskNotCancelable(stored.task.id, TaskState[state ?? TaskState.TASK_STATE_UNSPECIFIED]);
      // The task as the cancel left it (what was read before may be an earlier copy from the database); a task another
      // replica ran reads canceled once that replica has written it.
      let current = await owned(params.id);
      const wait = AbortSignal.any([deps.hangUp, AbortSignal.timeout(CANCEL_RECORDED_WAIT_MS)]);
      for await (const changed of storedTaskChanges(current, () => owned(params.id), wait)) current = changed;
      return view(current.task, undefined);
    }),

    resubscribe: guardStream(async function* subscribe(params) {
      const stored = await owned(params.id);
      if (isTerminal(stored.task.status?.state)) throw a2aUnsupported('Subscribing to a task that has ended');
      const queue = eventQueue(deps.hangUp);
      const stop = runner.subscribe(stored.task.id, queue.push);
      try {
        yield { payload: { $case: 'task', value: view(stored.task, undefined) } };
        // A task another replica runs is followed through the database.
        if (stop === undefined)
          yield* followedTaskEvents(storedTaskChanges(stored, () => owned(params.id), deps.hangUp));
        else yield* queue.drain();
      } finally {
        stop?.();
      }
    }),

    createTaskPushNotificationConfig: refusePush,
    getTaskPushNotificationConfig: refusePush,
    listTaskPushNotificationConfigs: refusePush,
    deleteTaskPushNotificationConfig: refusePush,
  };
}
