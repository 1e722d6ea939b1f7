// The admission limiter: at most maxConcurrent calls run; a bounded number wait in order (by count and by bytes),
// a waiter can give up, and a call past the bounds is refused unavailable with retryAfterMs, its task never run.
import { describe, expect, it } from 'vitest';
import { createAdmissionLimiter, MIN_RETRY_AFTER_MS, type AdmissionLimits } from '../../src/audio/limiter.js';

function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const limitsOf = (limits: Partial<AdmissionLimits>) => () => ({
  maxConcurrent: 1,
  maxWaiting: 10,
  maxQueuedBytes: 1_000_000,
  ...limits,
});
const settle = () => new Promise((resolve) => setImmediate(resolve));
const signal = new AbortController().signal;

describe('admission limiter', () => {
  it('starts a queued task only when a running one finishes, in arrival order', async () => {
    const limiter = createAdmissionLimiter(limitsOf({ maxConcurrent: 2 }), Date.now);
    const started: number[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    const tasks = gates.map((held, index) =>
      limiter.run(
        1,
        async () => {
          started.push(index);
          await held.opened;
          return index;
        },
        signal,
      ),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    expect(limiter.load()).toEqual({ running: 2, waiting: 2, queuedBytes: 2 });
    gates[1]?.open();
    await tasks[1];
    await settle();
    expect(started).toEqual([0, 1, 2]);
    for (const held of gates) held.open();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(limiter.load()).toEqual({ running: 0, waiting: 0, queuedBytes: 0 });
  });

  it('drops a waiter whose signal aborts, without taking a slot', async () => {
    const limiter = createAdmissionLimiter(limitsOf({}), Date.now);
    const held = gate();
    const running = limiter.run(1, () => held.opened, signal);
    const controller = new AbortController();
    let ran = false;
    const waiting = limiter.run(
      500,
      async () => {
        ran = true;
      },
      controller.signal,
    );
    controller.abort(new Error('caller left'));
    await expect(waiting).rejects.toThrow('caller left');
    expect(limiter.load()).toEqual({ running: 1, waiting: 0, queuedBytes: 0 });
    held.open();
    await running;
    expect(ran).toBe(false);
    expect(await limiter.run(1, async () => 'next', signal)).toBe('next');
  });

  it('refuses a call past maxWaiting with unavailable and retryAfterMs, and never runs it', async () => {
    const limiter = createAdmissionLimiter(limitsOf({ maxConcurrent: 1, maxWaiting: 2 }), Date.now);
    const held = gate();
    const admitted = [0, 1, 2].map(() => limiter.run(1, () => held.opened, signal));
    let ran = false;
    const refused = limiter.run(
      1,
      async () => {
        ran = true;
      },
      signal,
    );
    await expect(refused).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('audio.maxWaiting'),
      details: { retryAfterMs: expect.any(Number) },
    });
    await expect(refused).rejects.toSatisfy(
      (error: { details: { retryAfterMs: number } }) => error.details.retryAfterMs >= MIN_RETRY_AFTER_MS,
    );
    held.open();
    await Promise.all(admitted);
    expect(ran).toBe(false);
  });

  it('refuses a call whose bytes would take the queue past maxQueuedBytes, while a smaller one still waits', async () => {
    const limiter = createAdmissionLimiter(
      limitsOf({ maxConcurrent: 1, maxWaiting: 10, maxQueuedBytes: 1_000 }),
      Date.now,
    );
    const held = gate();
    const first = limiter.run(5_000, () => held.opened, signal);
    const waiting = limiter.run(600, async () => 'waited', signal);
    await expect(limiter.run(401, async () => 'never', signal)).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('audio.maxQueuedBytes'),
    });
    const small = limiter.run(400, async () => 'small', signal);
    expect(limiter.load()).toEqual({ running: 1, waiting: 2, queuedBytes: 1_000 });
    held.open();
    await first;
    expect(await Promise.all([waiting, small])).toEqual(['waited', 'small']);
  });

  it('lets no call wait with maxWaiting 0, and a call that finds a free slot runs whatever its size', async () => {
    const limiter = createAdmissionLimiter(limitsOf({ maxConcurrent: 1, maxWaiting: 0, maxQueuedBytes: 10 }), Date.now);
    const held = gate();
    const big = limiter.run(1_000_000, () => held.opened, signal);
    await expect(limiter.run(1, async () => undefined, signal)).rejects.toMatchObject({ kind: 'unavailable' });
    held.open();
    await big;
  });

  it('suggests a longer wait the longer calls have been holding their slots', async () => {
    let clock = 0;
    const limiter = createAdmissionLimiter(limitsOf({ maxConcurrent: 1, maxWaiting: 0 }), () => clock);
    const retryAfter = async () => {
      const held = gate();
      const running = limiter.run(1, () => held.opened, signal);
      const error: unknown = await limiter.run(1, async () => undefined, signal).catch((refusal: unknown) => refusal);
      held.open();
      await running;
      return (error as { details: { retryAfterMs: number } }).details.retryAfterMs;
    };
    const before = await retryAfter();
    for (let call = 0; call < 10; call += 1) {
      await limiter.run(
        1,
        async () => {
          clock += 60_000;
        },
        signal,
      );
    }
    expect(await retryAfter()).toBeGreaterThan(before);
  });
});
