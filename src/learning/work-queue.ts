// Learning's background lane: the turn's hooks queue work here and return at once; tasks run one at a time, in order,
// so a turn's record is saved before any later change of its outcome is applied to it.
import type { Logger } from 'pino';

/** Tasks waiting at once; past it new ones are dropped (and logged): learning never holds up or grows without bound. */
export const MAX_QUEUED_TASKS = 10_000;

export interface WorkQueue {
  /** Queues the task; false when the queue is full or stopped (the task is dropped). */
  push(name: string, task: () => Promise<void>): boolean;
  /** Queues the task and resolves with its result (a method's caller waits for it, never a turn). */
  run<T>(name: string, task: () => Promise<T>): Promise<T>;
  /** Resolves once every task queued so far has run. */
  idle(): Promise<void>;
  /** Stops taking tasks and waits for the queued ones. */
  stop(): Promise<void>;
}

export function createWorkQueue(log: Logger, maxQueued = MAX_QUEUED_TASKS): WorkQueue {
  let tail: Promise<void> = Promise.resolve();
  let queued = 0;
  let isStopped = false;
  let droppedSinceLog = 0;

  function chain<T>(name: string, task: () => Promise<T>): Promise<T> {
    queued += 1;
    const result = tail.then(task);
    tail = result.then(
      () => {
        queued -= 1;
      },
      (error: unknown) => {
        queued -= 1;
        log.error({ err: error, task: name }, 'learning task failed');
      },
    );
    return result;
  }

  return {
    push(name, task) {
      if (isStopped || queued >= maxQueued) {
        droppedSinceLog += 1;
        if (droppedSinceLog === 1 || droppedSinceLog % 1_000 === 0)
          log.warn({ task: name, dropped: droppedSinceLog }, 'learning queue full: task dropped');
        return false;
      }
      void chain(name, task).catch(() => undefined);
      return true;
    },
    run: (name, task) => chain(name, task),
    idle: () => tail,
    async stop() {
      isStopped = true;
      await tail;
    },
  };
}
