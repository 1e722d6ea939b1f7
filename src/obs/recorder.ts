// Records counts-only evidence through the evidence port in batches, off the hot path: an open turn's records are kept
// in memory and written as one row (its steps encoded once) when it ends, or as it stands at a flush while still open.
import type { Logger } from 'pino';
import type {
  EvidencePort,
  EvidenceWrite,
  SessionIndexStart,
  TrajectoryRecord,
  TurnStep,
  UsageRecord,
} from '../store/index.js';
import { createBatchQueue } from './batch-queue.js';
import { TRAJECTORY_KIND } from './evidence/kinds.js';

export type { SessionIndexStart, TrajectoryRecord, UsageRecord } from '../store/index.js';

/** Records one turn keeps; later ones are dropped (its turn_end is always kept) and counted in a steps_capped record. */
export const MAX_TURN_STEPS = 256;
/** Turns held open at once; past it the oldest is written as it stands and its later records are written alone. */
export const MAX_OPEN_TURNS = 10_000;

export interface Recorder {
  trajectory(record: TrajectoryRecord): void;
  startSession(entry: SessionIndexStart): void;
  endSession(traceId: string, outcome: { endReason: string; degraded: boolean; endedAt: number }): void;
  usage(record: UsageRecord): void;
  /** Resolves once everything recorded so far is written, open turns as they stand (reports await it before reading). */
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
  /** Records one turn keeps (MAX_TURN_STEPS). */
  maxTurnSteps?: number;
}

interface OpenTurn {
  entry: SessionIndexStart;
  steps: TurnStep[];
  dropped: number;
  /** Changed since it was last written. */
  dirty: boolean;
  /** A timed flush has passed it by once: the next one writes it (most turns end before then, and are written once). */
  isDue: boolean;
}

/** The turn's steps as written: past the cap, a steps_capped record (before turn_end) says how many were dropped. */
function stepsOf(turn: OpenTurn, cap: number, isOpen: boolean): TurnStep[] {
  // An open turn's list keeps growing after this write is queued; an ended one's is handed over as it is.
  if (turn.dropped === 0) return isOpen ? turn.steps.slice() : turn.steps;
  const last = turn.steps.at(-1);
  const isEnded = last?.kind === TRAJECTORY_KIND.turnEnd;
  const kept = isEnded ? turn.steps.slice(0, -1) : turn.steps.slice();
  const marker: TurnStep = {
    kind: TRAJECTORY_KIND.stepsCapped,
    ts: kept.at(-1)?.ts ?? turn.entry.startedAt,
    data: { cap, dropped: turn.dropped },
  };
  return last !== undefined && isEnded ? [...kept, marker, last] : [...kept, marker];
}

export function createRecorder({
  port,
  log,
  flushIntervalMs = 250,
  maxBuffered = 500,
  maxTurnSteps = MAX_TURN_STEPS,
}: RecorderOptions): Recorder {
  const open = new Map<string, OpenTurn>();
  const turnWrite = (
    turn: OpenTurn,
    end?: { endReason: string; degraded: boolean; endedAt: number },
  ): EvidenceWrite => ({
    type: 'turn',
    turn: {
      ...turn.entry,
      ...(end === undefined ? {} : { end }),
      steps: stepsOf(turn, maxTurnSteps, end === undefined),
    },
  });
  const queue = createBatchQueue<EvidenceWrite>({
    write: (batch) => port.append(batch),
    flushIntervalMs,
    maxBuffered,
    // A turn still open at a flush is written as it stands, so a crash mid-turn still leaves it, unfinished: at a
    // requested flush (a report reads next), else from the second timed flush it is open at, which loses no more on a
    // crash than the buffer the queue holds anyway.
    collect: (requested) => {
      const writes: EvidenceWrite[] = [];
      for (const turn of open.values()) {
        if (!turn.dirty) continue;
        if (!requested && !turn.isDue) {
          turn.isDue = true;
          // The next timed flush is due for it even if nothing else is recorded by then.
          queue.poke();
          continue;
        }
        turn.dirty = false;
        writes.push(turnWrite(turn));
      }
      return writes;
    },
    ...(log === undefined ? {} : { log }),
  });
  return {
    trajectory(record) {
      const turn = open.get(record.traceId);
      if (turn === undefined || turn.entry.sessionKey !== record.sessionKey) {
        queue.enqueue({ type: 'trajectory', record });
        return;
      }
      if (turn.steps.length < maxTurnSteps || record.kind === TRAJECTORY_KIND.turnEnd)
        turn.steps.push({ kind: record.kind, ts: record.ts, data: record.data });
      else turn.dropped += 1;
      turn.dirty = true;
      queue.poke();
    },
    startSession(entry) {
      if (open.size >= MAX_OPEN_TURNS) {
        const [oldest] = open.values();
        if (oldest !== undefined) {
          open.delete(oldest.entry.traceId);
          queue.enqueue(turnWrite(oldest));
        }
      }
      open.set(entry.traceId, { entry, steps: [], dropped: 0, dirty: true, isDue: false });
      queue.poke();
    },
    endSession(traceId, outcome) {
      const turn = open.get(traceId);
      if (turn === undefined) {
        queue.enqueue({ type: 'session_end', end: { traceId, ...outcome } });
        return;
      }
      open.delete(traceId);
      queue.enqueue(turnWrite(turn, outcome));
    },
    usage: (record) => queue.enqueue({ type: 'usage', record }),
    flush: () => queue.flush(),
    close: () => queue.close(),
  };
}
