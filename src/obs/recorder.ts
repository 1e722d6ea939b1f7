// Records counts-only evidence (trajectory, session index, token usage) through the evidence port in batches, off the hot path.
import type { Logger } from 'pino';
import type { EvidencePort, EvidenceWrite, SessionIndexStart, TrajectoryRecord, UsageRecord } from '../store/index.js';
import { createBatchQueue } from './batch-queue.js';

export type { SessionIndexStart, TrajectoryRecord, UsageRecord } from '../store/index.js';

export interface Recorder {
  trajectory(record: TrajectoryRecord): void;
  startSession(entry: SessionIndexStart): void;
  endSession(traceId: string, outcome: { endReason: string; degraded: boolean; endedAt: number }): void;
  usage(record: UsageRecord): void;
  /** Resolves once everything recorded so far is written (reports await it before reading). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface RecorderOptions {
  port: EvidencePort;
  log?: Logger;
  /** Buffered writes are flushed at most this long after they were made. */
  flushIntervalMs?: number;
  /** A buffer this large is flushed at once. */
  maxBuffered?: number;
}

export function createRecorder({ port, log, flushIntervalMs = 250, maxBuffered = 500 }: RecorderOptions): Recorder {
  const queue = createBatchQueue<EvidenceWrite>({
    write: (batch) => port.append(batch),
    flushIntervalMs,
    maxBuffered,
    ...(log === undefined ? {} : { log }),
  });
  return {
    trajectory: (record) => queue.enqueue({ type: 'trajectory', record }),
    startSession: (entry) => queue.enqueue({ type: 'session_start', entry }),
    endSession: (traceId, outcome) => queue.enqueue({ type: 'session_end', end: { traceId, ...outcome } }),
    usage: (record) => queue.enqueue({ type: 'usage', record }),
    flush: () => queue.flush(),
    close: () => queue.close(),
  };
}
