// One signal per upstream call: aborted by the caller, by the provider's timeoutMs, or when we stop reading.
export interface CallSignal {
  readonly signal: AbortSignal;
  /** True when the timeout, not the caller, ended the call. */
  isTimedOut(): boolean;
  /** Clears the timer and detaches from the caller; aborts the call if it is still running. */
  dispose(): void;
}

export function createCallSignal(caller: AbortSignal, timeoutMs: number): CallSignal {
  const controller = new AbortController();
  let isTimedOut = false;
  const onCallerAbort = (): void => controller.abort(caller.reason);
  if (caller.aborted) onCallerAbort();
  else caller.addEventListener('abort', onCallerAbort, { once: true });
  const timer = setTimeout(() => {
    isTimedOut = true;
    controller.abort(new DOMException(`model call exceeded ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  timer.unref();
  return {
    signal: controller.signal,
    isTimedOut: () => isTimedOut,
    dispose() {
      clearTimeout(timer);
      caller.removeEventListener('abort', onCallerAbort);
      if (!controller.signal.aborted) controller.abort(new DOMException('model call finished', 'AbortError'));
    },
  };
}
