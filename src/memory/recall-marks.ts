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

export function createRecallMarks({
  port,
  now,
  log,
  delayMs = RECALL_MARK_DELAY_MS,
  maxBuffered = RECALL_MARK_MAX_BUFFERED,
}: RecallMarksDeps): RecallMarks {
  /** Times each id was recalled since the last write. */
  let pending = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  /** markRecalled adds one per id per call, so an id recalled n times in the window is in the first n calls. */
  async function markAll(counts: Map<string, number>, at: number): Promise<void> {
    for (let round = 1; ; round += 1) {
      const ids = [...counts].flatMap(([id, times]) => (times >= round ? [id] : []));
      if (ids.length === 0) return;
      await port.markRecalled(ids, at);
    }
  }

  function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return writing;
    const counts = pending;
    pending = new Map();
    const at = now();
    writing = writing
      .then(() => markAll(counts, at))
      .catch((error: unknown) => log.warn({ err: error, count: counts.size }, 'marking memories recalled failed'));
    return writing;
  }

  return {
    add(ids) {
      for (const id of ids) pending.set(id, (pending.get(id) ?? 0) + 1);
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
