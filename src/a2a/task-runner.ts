// Runs an A2A task as a gateway run (kind `a2a`, run id = task id) on a session of the calling token: the turn's
// deltas become artifact chunks, an approval wait is TASK_STATE_INPUT_REQUIRED until the operator decides, and the end
// is completed, failed or canceled. Subscribers get every change; the store keeps the latest task.
import { TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Logger } from 'pino';
import { a2aTooManyTasks, maskUnknown, publicMessage } from '../errors.js';
import type { EventBus } from '../events/index.js';
import type { RunControl, RunHandle } from '../runs/index.js';
import type { Caller } from '../server/types.js';
import { makeSessionKey, sessionCallerOf } from '../sessions/index.js';
import type { ParsedSessionKey } from '../sessions/types.js';
import { turnRunOutcome, undoneTaskError, type TurnResult, type TurnRunner } from '../turns/index.js';
import { agentMessage, capText, replyArtifact } from './parts.js';
import { isTerminal, type StoredTask, type TaskStore } from './task-store.js';

/** The channel of every session an A2A task runs in, so obs.explain and the channel list name it. */
export const A2A_CHANNEL = 'a2a';

export type TaskListener = (event: StreamResponse) => void;

export interface StartTaskInput {
  agentId: string;
  caller: Caller;
  text: string;
  userMessage: Message;
  /** Told of the task's first event and every later one, from before the turn starts. */
  listener?: TaskListener;
}

export interface TaskRunner {
  start(input: StartTaskInput): Promise<StoredTask>;
  /** Adds a listener to a live task; undefined when the task is not running in this process. */
  subscribe(taskId: string, listener: TaskListener): (() => void) | undefined;
  /** Stops a task's run (its tree, as run.kill), here or on the replica running it; false when it was not running. */
  cancel(taskId: string, by: string): Promise<boolean>;
  /** Resolves once the task is terminal or waits for input (an approval); at once when it is not live. */
  settled(taskId: string): Promise<void>;
  close(): Promise<void>;
}

export interface TaskRunnerDeps {
  store: TaskStore;
  turns: TurnRunner;
  runControl: Pick<RunControl, 'startRun' | 'kill'>;
  events: Pick<EventBus, 'subscribe'>;
  limits: () => { maxRunningTasksPerToken: number; maxArtifactChars: number };
  now: () => number;
  newId: () => string;
  log: Logger;
}

interface LiveTask {
  stored: StoredTask;
  key: ParsedSessionKey;
  listeners: Set<TaskListener>;
  cancel: AbortController;
  waiters: Set<() => void>;
  done?: Promise<void>;
}

/** A contextId usable as a session key part as it is; any other is hashed into one. */
const SAFE_CONTEXT = /^[A-Za-z0-9._-]{1,100}$/;

function contextPart(contextId: string): string {
  return SAFE_CONTEXT.test(contextId) ? contextId : Buffer.from(contextId).toString('base64url').slice(0, 100);
}

export function createTaskRunner(deps: TaskRunnerDeps): TaskRunner {
  const { store, turns, runControl, now, newId, log } = deps;
  const live = new Map<string, LiveTask>();
  const shutdown = new AbortController();

  function emit(entry: LiveTask, event: StreamResponse): void {
    for (const listener of entry.listeners) listener(event);
  }

  function setStatus(entry: LiveTask, state: TaskState, message?: Message): void {
    const { task } = entry.stored;
    const at = now();
    task.status = { state, message, timestamp: new Date(at).toISOString() };
    entry.stored.updatedAt = at;
    store.put(entry.stored);
    const value = { taskId: task.id, contextId: task.contextId, status: task.status, metadata: undefined };
    emit(entry, { payload: { $case: 'statusUpdate', value } });
    if (state === TaskState.TASK_STATE_INPUT_REQUIRED || isTerminal(state)) {
      for (const waiter of entry.waiters) waiter();
      entry.waiters.clear();
    }
  }

  /** Deltas go out one behind, so the last chunk can say it is the last; past the cap nothing more is sent. */
  function artifactStreamer(entry: LiveTask) {
    let held: string | undefined;
    let sent = 0;
    let isFirst = true;
    const send = (text: string, lastChunk: boolean) => {
      const { id, contextId } = entry.stored.task;
      const artifact = replyArtifact(text);
      emit(entry, {
        payload: {
          $case: 'artifactUpdate',
          value: { taskId: id, contextId, artifact, append: !isFirst, lastChunk, metadata: undefined },
        },
      });
      isFirst = false;
    };
    return {
      delta(text: string) {
        const room = deps.limits().maxArtifactChars - sent;
        if (room <= 0) return;
        const piece = text.slice(0, room);
        sent += piece.length;
        if (held !== undefined) send(held, false);
        held = piece;
      },
      end(whole: string) {
        if (held !== undefined) send(held, true);
        else if (whole !== '') send(capText(whole, deps.limits().maxArtifactChars), true);
      },
    };
  }

  async function execute(entry: LiveTask, run: RunHandle, input: StartTaskInput): Promise<void> {
    const { task } = entry.stored;
    setStatus(entry, TaskState.TASK_STATE_WORKING);
    const artifact = artifactStreamer(entry);
    const signal = AbortSignal.any([run.signal, entry.cancel.signal, shutdown.signal]);
    let result: TurnResult | undefined;
    let failure: string | undefined;
    try {
      result = await turns.run({
        ...entry.key,
        agentId: input.agentId,
        message: input.text,
        caller: sessionCallerOf(input.caller),
        rootRunId: task.id,
        messageId: input.userMessage.messageId,
        onDelta: (delta) => artifact.delta(delta),
        signal,
      });
      failure = undoneTaskError(result);
    } catch (error) {
      failure = publicMessage(maskUnknown(error, log, { taskId: task.id }, 'A2A task failed'));
    }
    await run.finish(turnRunOutcome(result, failure));
    const isCanceled = entry.cancel.signal.aborted || run.signal.aborted;
    if (isCanceled) {
      setStatus(entry, TaskState.TASK_STATE_CANCELED, agentMessage(newId(), task.id, task.contextId, 'Canceled'));
      return;
    }
    if (failure !== undefined || result === undefined) {
      const text = failure ?? 'The turn ended without a result';
      setStatus(entry, TaskState.TASK_STATE_FAILED, agentMessage(newId(), task.id, task.contextId, text));
      return;
    }
    const reply = capText(result.response, deps.limits().maxArtifactChars);
    artifact.end(result.response);
    task.artifacts = [replyArtifact(reply)];
    const answer = agentMessage(newId(), task.id, task.contextId, reply);
    task.history = [...task.history, answer];
    setStatus(entry, TaskState.TASK_STATE_COMPLETED, answer);
  }

  // An approval wait of a task's turn is the A2A input-required state until the operator decides.
  const unsubscribe = deps.events.subscribe((event) => {
    if (event.name !== 'approval:requested' && event.name !== 'approval:resolved') return;
    for (const entry of live.values()) {
      if (entry.key.sessionKey !== event.payload.sessionKey || isTerminal(entry.stored.task.status?.state)) continue;
      const { id, contextId } = entry.stored.task;
      if (event.name === 'approval:requested') {
        const text = `Waiting for an operator to approve the tool call ${event.payload.toolName} (approval ${event.payload.requestId})`;
        setStatus(entry, TaskState.TASK_STATE_INPUT_REQUIRED, agentMessage(newId(), id, contextId, text));
      } else setStatus(entry, TaskState.TASK_STATE_WORKING);
    }
  });

  const runningOf = (clientId: string) =>
    [...live.values()].filter((entry) => entry.stored.ownerId === clientId).length;

  return {
    async start(input) {
      const limit = deps.limits().maxRunningTasksPerToken;
      if (runningOf(input.caller.clientId) >= limit) throw a2aTooManyTasks(limit);
      const taskId = newId();
      const contextId = input.userMessage.contextId === '' ? newId() : input.userMessage.contextId;
      const key = makeSessionKey({
        userId: input.caller.clientId,
        channelId: A2A_CHANNEL,
        peerId: `${input.agentId}.${contextPart(contextId)}`,
      });
      const at = now();
      const task: Task = {
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date(at).toISOString() },
        artifacts: [],
        history: [{ ...input.userMessage, taskId, contextId }],
        metadata: { runId: taskId, sessionKey: key.sessionKey },
      };
      const stored: StoredTask = { task, ownerId: input.caller.clientId, agentId: input.agentId, updatedAt: at };
      const entry: LiveTask = {
        stored,
        key,
        listeners: new Set(input.listener === undefined ? [] : [input.listener]),
        cancel: new AbortController(),
        waiters: new Set(),
      };
      live.set(taskId, entry);
      let run: RunHandle;
      try {
        run = await runControl.startRun({
          runId: taskId,
          rootRunId: taskId,
          kind: 'a2a',
          agentId: input.agentId,
          sessionKey: key.sessionKey,
          task: input.text,
          requestedBy: input.caller.clientId,
        });
      } catch (error) {
        live.delete(taskId);
        throw error;
      }
      store.put(stored);
      emit(entry, { payload: { $case: 'task', value: task } });
      entry.done = execute(entry, run, input)
        .catch((error: unknown) => log.error({ err: error, taskId }, 'an A2A task could not record its end'))
        .finally(() => {
          for (const waiter of entry.waiters) waiter();
          live.delete(taskId);
        });
      return stored;
    },

    subscribe(taskId, listener) {
      const entry = live.get(taskId);
      if (entry === undefined) return undefined;
      entry.listeners.add(listener);
      return () => entry.listeners.delete(listener);
    },

    async cancel(taskId, by) {
      const entry = live.get(taskId);
      // A task another replica runs is stopped there, through its run's tree.
      if (entry === undefined) return (await runControl.kill(taskId, by)).status === 'revoked';
      entry.cancel.abort();
      await runControl.kill(taskId, by);
      await entry.done;
      return true;
    },

    settled(taskId) {
      const entry = live.get(taskId);
      const state = entry?.stored.task.status?.state;
      if (entry === undefined || state === TaskState.TASK_STATE_INPUT_REQUIRED || isTerminal(state))
        return Promise.resolve();
      return new Promise((resolve) => entry.waiters.add(resolve));
    },

    async close() {
      unsubscribe();
      shutdown.abort();
      await Promise.all([...live.values()].map((entry) => entry.done));
    },
  };
}
