// Records counts-only evidence through the evidence port in batches, off the hot path: an open turn's records are kept
// in memory and written as one row (its steps encoded once) when it ends, or as it stands at a flush while still open.
import type { Logger } from 'pino';
import type {
  EvidencePort,
  EvidenceWrite,
  SessionIndexEnd,
  SessionIndexStart,
  TrajectoryRecord,
  TurnStep,
  TurnWrite,
  UsageRecord,
} from '../store/index.js';
import { createBatchQueue } from './batch-queue.js';
import { TRAJECTORY_KIND } from './evidence/kinds.js';

export type { SessionIndexStart, TrajectoryRecord, UsageRecord } from '../store/index.js';

/** Records one turn keeps; later ones are dropped (its turn_end is always kept) and counted in a steps_capped record. */
export const MAX_TURN_STEPS = 256;
/** Turns held open at once; past it the oldest is written as it stands and its later records are written alone. */
export const MAX_OPEN_TURNS = 10_000;

/** Where one open turn's records go: trajectory()/endSession() with the turn's ids, without looking the turn up. */
export interface TurnRecorder {
  step(kind: string, ts: number, data: Record<string, unknown>): void;
  end(outcome: SessionEnd): void;
}

type SessionEnd = Omit<SessionIndexEnd, 'traceId'>;

export interface Recorder {
  /** Opens a turn (as startSession does) and returns where its records go. */
  openTurn(entry: SessionIndexStart): TurnRecorder;
  trajectory(record: TrajectoryRecord): void;
  startSession(entry: SessionIndexStart): void;
  endSession(traceId: string, outcome: SessionEnd): void;
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
  /** Still held here: false once it ended or was written out as it stood to make room. */
  isOpen: boolean;
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

/** SessionIndexStart's fields turnRow does not copy: a new one makes its calls fail to compile until it does. */
type Uncopied = Exclude<
  keyof SessionIndexStart,
  'traceId' | 'sessionKey' | 'agentId' | 'channel' | 'startedAt' | 'isSynthetic' | 'messageId' | 'rootRunId'
>;
/**
 * A turn's row: its entry's fields copied one by one into one literal (a spread of the entry cost several times as
 * much, once per turn on the main thread), then its end and its steps.
 */
function turnRow(
  entry: SessionIndexStart & Record<Uncopied, never>,
  end: SessionEnd | undefined,
  steps: readonly TurnStep[],
): TurnWrite {
  const row: TurnWrite = {
    traceId: entry.traceId,
    sessionKey: entry.sessionKey,
    agentId: entry.agentId,
    channel: entry.channel,
    startedAt: entry.startedAt,
    isSynthetic: entry.isSynthetic,
    steps,
  };
  if (entry.messageId !== undefined) row.messageId = entry.messageId;
  if (entry.rootRunId !== undefined) row.rootRunId = entry.rootRunId;
  if (end !== undefined) row.end = end;
  return row;
}

export function createRecorder({
  port,
  log,
  flushIntervalMs = 250,
  maxBuffered = 500,
  maxTurnSteps = MAX_TURN_STEPS,
}: RecorderOptions): Recorder {
  const open = new Map<string, OpenTurn>();
  const openTurnWrite = (turn: OpenTurn): EvidenceWrite => ({
    type: 'turn',
    turn: turnRow(turn.entry, undefined, stepsOf(turn, maxTurnSteps, true)),
  });
  const endedTurnWrite = (turn: OpenTurn, end: SessionEnd): EvidenceWrite => ({
    type: 'turn',
    turn: turnRow(turn.entry, end, stepsOf(turn, maxTurnSteps, false)),
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
        writes.push(openTurnWrite(turn));
      }
      return writes;
    },
    ...(log === undefined ? {} : { log }),
  });
  function addStep(turn: OpenTurn, kind: string, ts: number, data: Record<string, unknown>): void {
    if (turn.steps.length < maxTurnSteps || kind === TRAJECTORY_KIND.turnEnd) turn.steps.push({ kind, ts, data });
    else turn.dropped += 1;
    turn.dirty = true;
    queue.poke();
  }
  function endTurn(turn: OpenTurn, outcome: SessionEnd): void {
    turn.isOpen = false;
    open.delete(turn.entry.traceId);
    queue.enqueue(endedTurnWrite(turn, outcome));
  }
  function openTurn(entry: SessionIndexStart): OpenTurn {
    if (open.size >= MAX_OPEN_TURNS) {
      const [oldest] = open.values();
      if (oldest !== undefined) {
        oldest.isOpen = false;
        open.delete(oldest.entry.traceId);
        queue.enqueue(openTurnWrite(oldest));
      }
    }
    const turn: OpenTurn = { entry, steps: [], dropped: 0, dirty: true, isDue: false, isOpen: true };
    open.set(entry.traceId, turn);
    queue.poke();
    return turn;
  }
  function trajectory(record: TrajectoryRecord): void {
    const turn = open.get(record.traceId);
    if (turn === undefined || turn.entry.sessionKey !== record.sessionKey)
      queue.enqueue({ type: 'trajectory', record });
    else addStep(turn, record.kind, record.ts, record.data);
  }
  function endSession(traceId: string, outcome: SessionEnd): void {
    const turn = open.get(traceId);
    if (turn === undefined) queue.enqueue({ type: 'session_end', end: { traceId, ...outcome } });
    else endTurn(turn, outcome);
  }
  return {
    openTurn(entry) {
      const turn = openTurn(entry);
      const { traceId, sessionKey } = entry;
      return {
        step(kind, ts, data) {
          if (turn.isOpen) addStep(turn, kind, ts, data);
          else trajectory({ sessionKey, traceId, kind, ts, data });
        },
        end(outcome) {
          if (turn.isOpen) endTurn(turn, outcome);
          else endSession(traceId, outcome);
        },
      };
    },
    trajectory,
    startSession: (entry) => void openTurn(entry),
    endSession,
    usage: (record) => queue.enqueue({ type: 'usage', record }),
    flush: () => queue.flush(),
    close: () => queue.close(),
  };
}
