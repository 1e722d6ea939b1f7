// One node's attempts: up to `retries` more after a failed one, each bounded by the node's timeoutMs and the run's signal.

/** What a node (or a map item) needs for its attempts. */
export interface AttemptPolicy {
  retries: number;
  /** Per attempt, in milliseconds; absent: only the run's signal bounds it. */
  timeoutMs?: number;
}

export type AttemptOutcome =
  { ok: true; output: unknown; attempts: number } | { ok: false; error: string; attempts: number };

/** The message of a thrown value, for a node record's `error`. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Rejects when `signal` aborts, so a runner that ignores its signal cannot hold the run. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  let onAbort = (): void => {};
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/**
 * Runs `attempt` until it resolves or its attempts are spent; never rejects. `onAttempt` is told each attempt's number
 * before it starts. A cancelled run (signal aborted) makes no further attempt.
 */
export async function runAttempts(
  policy: AttemptPolicy,
  signal: AbortSignal,
  attempt: (signal: AbortSignal) => Promise<unknown>,
  onAttempt: (attempt: number) => Promise<void> = async () => {},
): Promise<AttemptOutcome> {
  let error = 'cancelled';
  let attempts = 0;
  for (let number = 1; number <= policy.retries + 1 && !signal.aborted; number += 1) {
    attempts = number;
    await onAttempt(number);
    const timeout = new AbortController();
    const timer =
      policy.timeoutMs === undefined
        ? undefined
        : setTimeout(() => timeout.abort(new Error(`timed out after ${policy.timeoutMs} ms`)), policy.timeoutMs);
    timer?.unref();
    const bounded = AbortSignal.any([signal, timeout.signal]);
    try {
      return { ok: true, output: await abortable(attempt(bounded), bounded), attempts };
    } catch (thrown) {
      error = timeout.signal.aborted
        ? errorText(timeout.signal.reason)
        : signal.aborted
          ? 'cancelled'
          : errorText(thrown);
    } finally {
      clearTimeout(timer);
    }
  }
  return { ok: false, error, attempts };
}
