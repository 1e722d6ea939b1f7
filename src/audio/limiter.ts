// Admits transcriptions: at most maxConcurrent run at once (decoding and engines), a bounded number wait their turn
// in order (by count and by the bytes of audio they hold), and a call beyond that is refused at once.
import { audioBusy } from '../errors.js';

export interface AdmissionLimits {
  /** Calls running at once. */
  maxConcurrent: number;
  /** Calls waiting for a slot; 0: none wait. */
  maxWaiting: number;
  /** Bytes of audio the waiting calls may hold together. */
  maxQueuedBytes: number;
}

export interface AdmissionLimiter {
  /**
   * Runs `task` once a slot is free. Rejects with `unavailable` (retryAfterMs) at once when the queue is full, and
   * with the signal's reason when the caller leaves while waiting; neither ever runs `task`.
   */
  run<T>(bytes: number, task: () => Promise<T>, signal: AbortSignal): Promise<T>;
  /** Calls running, waiting, and the bytes those waiting hold. */
  load(): { running: number; waiting: number; queuedBytes: number };
}

interface Waiter {
  bytes: number;
  start: () => void;
}

/** The guess of a call's length before any has finished, and the least wait a refusal suggests. */
export const DEFAULT_CALL_MS = 5_000;
export const MIN_RETRY_AFTER_MS = 1_000;
/** Weight of the newest call in the running average of how long a call holds its slot. */
const AVERAGE_WEIGHT = 0.2;

export function createAdmissionLimiter(limits: () => AdmissionLimits, now: () => number): AdmissionLimiter {
  let running = 0;
  let queuedBytes = 0;
  let averageCallMs = DEFAULT_CALL_MS;
  const waiting: Waiter[] = [];

  function release(startedAt: number): void {
    running -= 1;
    averageCallMs += AVERAGE_WEIGHT * (Math.max(0, now() - startedAt) - averageCallMs);
    // Read again: a config reload may have changed maxConcurrent since the slot was taken.
    const { maxConcurrent } = limits();
    while (running < maxConcurrent) {
      const next = waiting.shift();
      if (next === undefined) return;
      queuedBytes -= next.bytes;
      next.start();
    }
  }

  /** About when a slot frees for a call that would queue behind all the waiting ones. */
  function retryAfterMs(maxConcurrent: number): number {
    return Math.max(MIN_RETRY_AFTER_MS, Math.ceil(averageCallMs * Math.ceil((waiting.length + 1) / maxConcurrent)));
  }

  function acquire(bytes: number, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const { maxConcurrent, maxWaiting, maxQueuedBytes } = limits();
    if (running < maxConcurrent && waiting.length === 0) {
      running += 1;
      return Promise.resolve();
    }
    if (waiting.length >= maxWaiting) return Promise.reject(audioBusy('audio.maxWaiting', retryAfterMs(maxConcurrent)));
    if (queuedBytes + bytes > maxQueuedBytes)
      return Promise.reject(audioBusy('audio.maxQueuedBytes', retryAfterMs(maxConcurrent)));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        start: () => {
          signal.removeEventListener('abort', onAbort);
          running += 1;
          resolve();
        },
      };
      function onAbort(): void {
        const index = waiting.indexOf(waiter);
        if (index === -1) return;
        waiting.splice(index, 1);
        queuedBytes -= bytes;
        reject(signal.reason);
      }
      signal.addEventListener('abort', onAbort, { once: true });
      waiting.push(waiter);
      queuedBytes += bytes;
    });
  }

  return {
    async run(bytes, task, signal) {
      await acquire(bytes, signal);
      const startedAt = now();
      try {
        return await task();
      } finally {
        release(startedAt);
      }
    },
    load: () => ({ running, waiting: waiting.length, queuedBytes }),
  };
}
