// Collects the ids recall returned and marks them recalled in one store call shortly after, never on the turn's path.
import type { Logger } from 'pino';
import type { MemoryPort } from '../store/index.js';

/** Recalled ids are written at most this long after the recall, in ms. */
export const RECALL_MARK_DELAY_MS = 250;
/** Ids buffered at most; a full buffer is written at once. */
export const RECALL_MARK_MAX_BUFFERED = 1_000;

export interface RecallMarks {
  add(ids: readonly string[]): void;
  /** Writes what is buffered; resolves once written. */
  flush(): Promise<void>;
}

export interface RecallMarksDeps {
  port: Pick<MemoryPort, 'markRecalled'>;
  now: () => number;
  log: Logger;
  delayMs?: number;
  maxBuffered?: number;
}

export function createRecallMarks({ port, now, log, delayMs = RECALL_MARK_DELAY_MS, maxBuffered = RECALL_MARK_MAX_BUFFERED }: RecallMarksDeps): RecallMarks {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return writing;
    const ids = [...pending];
    pending = new Set();
    const at = now();
    writing = writing.then(() => port.markRecalled(ids, at)).catch((error: unknown) => log.warn({ err: error, count: ids.length }, 'marking memories recalled failed'));
    return writing;
  }

  return {
    add(ids) {
      for (const id of ids) pending.add(id);
      if (pending.size >= maxBuffered) {
        void flush();
      } else if (timer === undefined && pending.size > 0) {
        timer = setTimeout(() => void flush(), delayMs);
        timer.unref();
      }
    },
    flush,
  };
}
