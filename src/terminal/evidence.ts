// The terminal drives' trajectory records: terminal_drive_input per send, terminal_drive_promoted for a drive kept past
// the turn that opened it, terminal_session_evicted per reaper end and terminal_drive_closed per close or shutdown.
import type { Logger } from 'pino';
import { TRAJECTORY_KIND, type Recorder } from '../obs/index.js';
import type { DriveEnd, DriveInfo, EvictionReason } from './types.js';

/** Turns whose drives are tracked at once; a turn that never reached afterTurn (it threw) is forgotten oldest first. */
export const MAX_TRACKED_TURNS = 1_000;

const EVICTIONS: ReadonlySet<string> = new Set<EvictionReason>([
  'idle',
  'wall_clock',
  'max_sessions',
  'max_interactions',
]);

/** The turn a terminal_* call ran in: where its records go. */
export interface TurnRef {
  traceId: string;
  sessionKey: string;
}

export interface TerminalEvidenceDeps {
  recorder: Pick<Recorder, 'trajectory'>;
  now: () => number;
  log: Logger;
}

export interface TerminalEvidence {
  /** A turn is about to act on its session's live drive: the drive's end, when it comes, is recorded on that turn. */
  touch(driveId: string, turn: TurnRef | undefined): void;
  /** A terminal_* call on `driveId` succeeded in `turn` (`opened`: it was terminal_open). */
  succeeded(driveId: string, turn: TurnRef | undefined, opened?: boolean): void;
  /** terminal_send wrote `chars` characters to the drive. */
  input(driveId: string, chars: number, turn: TurnRef | undefined): void;
  /** At the turn's end: each drive it opened that is still open is promoted, with the turn's successes on it. */
  turnEnded(traceId: string, agentId: string, isOpen: (driveId: string) => boolean): void;
  /** A drive ended (DrivesTable.onEnded): an eviction or a close, recorded on the last turn that touched it. */
  ended(info: DriveInfo, end: DriveEnd): void;
}

interface TurnDrives {
  sessionKey: string;
  /** Per drive touched in the turn: its successful calls, and whether the turn opened it. */
  drives: Map<string, { successes: number; opened: boolean }>;
}

export function createTerminalEvidence({ recorder, now, log }: TerminalEvidenceDeps): TerminalEvidence {
  const turns = new Map<string, TurnDrives>();
  /** The last turn that touched each live drive: where a reaper's or an operator's end is recorded. */
  const lastTurn = new Map<string, TurnRef>();

  const write = (turn: TurnRef, kind: string, data: Record<string, unknown>) =>
    recorder.trajectory({ sessionKey: turn.sessionKey, traceId: turn.traceId, kind, ts: now(), data });

  function turnOf(turn: TurnRef): TurnDrives {
    const known = turns.get(turn.traceId);
    if (known !== undefined) return known;
    if (turns.size >= MAX_TRACKED_TURNS) {
      const [oldest] = turns.keys();
      if (oldest !== undefined) turns.delete(oldest);
    }
    const fresh: TurnDrives = { sessionKey: turn.sessionKey, drives: new Map() };
    turns.set(turn.traceId, fresh);
    return fresh;
  }

  return {
    touch(driveId, turn) {
      if (turn !== undefined) lastTurn.set(driveId, turn);
    },
    succeeded(driveId, turn, opened = false) {
      if (turn === undefined) return;
      const { drives } = turnOf(turn);
      const drive = drives.get(driveId) ?? { successes: 0, opened: false };
      drives.set(driveId, { successes: drive.successes + 1, opened: drive.opened || opened });
    },
    input(driveId, chars, turn) {
      if (turn === undefined) return;
      write(turn, TRAJECTORY_KIND.terminalDriveInput, { driveId, chars });
    },
    turnEnded(traceId, agentId, isOpen) {
      const turn = turns.get(traceId);
      if (turn === undefined) return;
      turns.delete(traceId);
      for (const [driveId, { successes, opened }] of turn.drives) {
        if (!opened || !isOpen(driveId)) continue;
        write({ traceId, sessionKey: turn.sessionKey }, TRAJECTORY_KIND.terminalDrivePromoted, {
          driveId,
          agentId,
          successes,
        });
      }
    },
    ended(info, end) {
      const turn = lastTurn.get(info.driveId);
      lastTurn.delete(info.driveId);
      const { driveId, agentId, interactions } = info;
      const durationMs = Math.max(0, now() - info.openedAt);
      const isEviction = EVICTIONS.has(end.reason);
      log.info(
        { driveId, agentId, reason: end.reason, interactions, durationMs, idleMs: end.idleMs },
        isEviction ? 'terminal drive evicted' : 'terminal drive closed',
      );
      if (turn === undefined) return;
      if (isEviction) {
        const { reason, idleMs, wasProducing } = end;
        write(turn, TRAJECTORY_KIND.terminalSessionEvicted, { driveId, reason, idleMs, wasProducing });
      } else {
        write(turn, TRAJECTORY_KIND.terminalDriveClosed, { driveId, reason: end.reason, interactions, durationMs });
      }
    },
  };
}
