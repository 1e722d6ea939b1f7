// The adapters' wait between reconnects and retries: resolves after `ms`, or at once when `signal` aborts (stop()).

/** Resolves after `ms`, or at once when `signal` aborts; the timer never keeps the process alive. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done, { once: true });
  });
}
