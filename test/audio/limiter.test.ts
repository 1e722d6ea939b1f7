// The local process limiter: at most maxConcurrent tasks run; the rest wait in order, and a waiter can give up.
import { describe, expect, it } from 'vitest';
import { createProcessLimiter } from '../../src/audio/limiter.js';

function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('process limiter', () => {
  it('starts a queued task only when a running one finishes, in arrival order', async () => {
    const limiter = createProcessLimiter(() => 2);
    const signal = new AbortController().signal;
    const started: number[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    const tasks = gates.map((held, index) => limiter.run(async () => {
      started.push(index);
      await held.opened;
      return index;
    }, signal));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    gates[1]?.open();
    await tasks[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    for (const held of gates) held.open();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it('drops a waiter whose signal aborts, without taking a slot', async () => {
    const limiter = createProcessLimiter(() => 1);
    const held = gate();
    const running = limiter.run(() => held.opened, new AbortController().signal);
    const controller = new AbortController();
    let ran = false;
    const waiting = limiter.run(async () => {
      ran = true;
    }, controller.signal);
    controller.abort(new Error('caller left'));
    await expect(waiting).rejects.toThrow('caller left');
    held.open();
    await running;
    expect(ran).toBe(false);
    expect(await limiter.run(async () => 'next', new AbortController().signal)).toBe('next');
  });
});
