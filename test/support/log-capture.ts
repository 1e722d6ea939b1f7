// A pino logger whose lines are kept in memory, so a test can wait for a log entry and read it.
import { createLogger, type Logger } from '../../src/obs/logger.js';

export interface LogCapture {
  log: Logger;
  lines: string[];
  /** Resolves with the first line containing `text` (already logged or future); rejects after `timeoutMs`. */
  waitFor(text: string, timeoutMs?: number): Promise<string>;
}

export function captureLogs(level = 'debug'): LogCapture {
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  const log = createLogger({
    level,
    destination: {
      write(line: string) {
        lines.push(line);
        for (const waiter of waiters.splice(0)) waiter();
      },
    },
  });
  return {
    log,
    lines,
    waitFor(text, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no log line with ${JSON.stringify(text)} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = () => {
          const line = lines.find((candidate) => candidate.includes(text));
          if (line === undefined) waiters.push(check);
          else {
            clearTimeout(timer);
            resolve(line);
          }
        };
        check();
      });
    },
  };
}
