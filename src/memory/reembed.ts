// Lazy re-embedding: entries without a vector of the current embedder's model get one, a small batch at a time, off the request path.
import type { Logger } from 'pino';
import type { MemoryPort } from '../store/index.js';
import type { MemoryEmbedder } from './memory-embedder.js';

/** Entries embedded per batch: one provider call, short enough not to hold the event loop. */
export const REEMBED_BATCH_SIZE = 32;
/** Pause between batches, in ms, so searches and turns interleave with a large backlog. */
export const REEMBED_PAUSE_MS = 25;
/** Pause after a failed batch (provider down), in ms, before trying again. */
export const REEMBED_RETRY_MS = 60_000;

export interface Reembedder {
  /** Starts (or continues) working through the backlog; a no-op while already running. */
  kick(): void;
  /** Stops after the batch in flight; resolves once it is done. */
  stop(): Promise<void>;
}

export interface ReembedderDeps {
  port: Pick<MemoryPort, 'withoutVector' | 'setVector'>;
  embedder: MemoryEmbedder;
  log: Logger;
  batchSize?: number;
  pauseMs?: number;
  retryMs?: number;
}

export function createReembedder({
  port,
  embedder,
  log,
  batchSize = REEMBED_BATCH_SIZE,
  pauseMs = REEMBED_PAUSE_MS,
  retryMs = REEMBED_RETRY_MS,
}: ReembedderDeps): Reembedder {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  function schedule(delayMs: number): void {
    if (controller.signal.aborted || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = batch().finally(() => (running = undefined));
    }, delayMs);
    timer.unref();
  }

  async function batch(): Promise<void> {
    try {
      const pending = await port.withoutVector(embedder.model, batchSize);
      if (pending.length === 0) return;
      const vectors = await embedder.embed(
        pending.map((entry) => entry.content),
        controller.signal,
      );
      for (const [index, { id }] of pending.entries()) {
        const vector = vectors[index];
        if (vector !== undefined) await port.setVector(id, vector);
      }
      log.debug({ model: embedder.model, count: pending.length }, 'memory entries re-embedded');
      // A short batch was the end of the backlog; entries stored later are embedded as they are stored.
      if (pending.length === batchSize) schedule(pauseMs);
    } catch (error) {
      if (controller.signal.aborted) return;
      log.warn({ err: error, model: embedder.model }, 'memory re-embedding failed; retrying later');
      schedule(retryMs);
    }
  }

  return {
    kick() {
      if (running === undefined) schedule(0);
    },
    async stop() {
      controller.abort();
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
