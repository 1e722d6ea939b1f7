// createPeriodicTask: one run at a time, the next scheduled after one ends, joined runNow calls, stop waiting.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPeriodicTask } from '../src/periodic-task.js';

describe('createPeriodicTask', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs one interval after start, then one interval after each run ends, never two at once', async () => {
    const finishers: (() => void)[] = [];
    let runs = 0;
    const task = createPeriodicTask({
      run: () => {
        runs += 1;
        return new Promise<void>((resolve) => finishers.push(resolve));
      },
      intervalMs: () => 1000,
      onTimedFailure: () => undefined,
    });
    task.start();
    await vi.advanceTimersByTimeAsync(999);
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(1);
    // The first run has not ended: however long it takes, no second one starts.
    await vi.advanceTimersByTimeAsync(5000);
    expect(runs).toBe(1);
    finishers[0]?.();
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(2);
    finishers[1]?.();
    await task.stop();
  });

  it('joins a runNow asked for while a run goes, and answers each caller its result', async () => {
    let finish = (): void => {};
    let runs = 0;
    const task = createPeriodicTask({
      run: () => {
        runs += 1;
        return new Promise<number>((resolve) => (finish = () => resolve(runs)));
      },
      intervalMs: () => 1000,
      onTimedFailure: () => undefined,
    });
    const first = task.runNow();
    const second = task.runNow();
    finish();
    expect(await Promise.all([first, second])).toEqual([1, 1]);
    expect(await (task.runNow(), finish(), task.runNow())).toBe(2);
  });

  it('schedules nothing for an interval of 0, and reads the interval again before each wait', async () => {
    let intervalMs = 0;
    let runs = 0;
    const task = createPeriodicTask({
      run: async () => {
        runs += 1;
      },
      intervalMs: () => intervalMs,
      onTimedFailure: () => undefined,
    });
    task.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runs).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    // runNow still works when no timer runs it.
    await task.runNow();
    expect(runs).toBe(1);

    intervalMs = 500;
    const timed = createPeriodicTask({
      run: async () => {
        runs += 1;
        intervalMs = 2000;
      },
      intervalMs: () => intervalMs,
      onTimedFailure: () => undefined,
    });
    timed.start();
    await vi.advanceTimersByTimeAsync(500);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(3);
    await timed.stop();
  });

  it('reports a timed run that failed and keeps its schedule; a runNow failure goes to its caller', async () => {
    const failures: unknown[] = [];
    let runs = 0;
    const task = createPeriodicTask({
      run: () => {
        runs += 1;
        return Promise.reject(new Error(`run ${runs} failed`));
      },
      intervalMs: () => 1000,
      onTimedFailure: (error) => failures.push(error),
    });
    task.start();
    await vi.advanceTimersByTimeAsync(2000);
    expect(failures.map((error) => (error as Error).message)).toEqual(['run 1 failed', 'run 2 failed']);
    await expect(task.runNow()).rejects.toThrow('run 3 failed');
    expect(failures).toHaveLength(2);
    await task.stop();
  });

  it('stop cancels the next run and waits for the running one; start after stop does nothing', async () => {
    let finish = (): void => {};
    let runs = 0;
    let isFinished = false;
    const task = createPeriodicTask({
      run: () => {
        runs += 1;
        return new Promise<void>((resolve) => {
          finish = () => {
            isFinished = true;
            resolve();
          };
        });
      },
      intervalMs: () => 1000,
      onTimedFailure: () => undefined,
    });
    task.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(1);
    let isStopDone = false;
    const stopping = task.stop().then(() => (isStopDone = true));
    expect(task.isStopped()).toBe(true);
    await vi.advanceTimersByTimeAsync(10);
    expect(isStopDone).toBe(false);
    finish();
    await stopping;
    expect(isFinished).toBe(true);
    task.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(1);
  });
});
