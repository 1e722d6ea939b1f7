// The shapes of terminal drives shared by the drive table, the reaper, the agent tools and the terminal.* methods.

/** open: the shell runs; exited: the shell ended by itself (its output stays readable until closed or reaped). */
export type DriveState = 'open' | 'exited';

/** Why the reaper ended a drive (the terminal.session_evicted record's reason). */
export type EvictionReason = 'idle' | 'wall_clock' | 'max_sessions' | 'max_interactions';

/** Why a drive ended: an eviction, the agent's terminal_close, an operator's terminal.close, or the gateway stopping. */
export type DriveEndReason = EvictionReason | 'closed' | 'operator' | 'shutdown';

export interface DriveInfo {
  driveId: string;
  agentId: string;
  /** The session that opened the drive and owns it: only its turns reach the drive (operators through terminal.*). */
  sessionKey: string;
  /** The token owning that session. */
  ownerId: string;
  state: DriveState;
  /** The drive's working directory when it opened, inside the agent's workspace. */
  cwd: string;
  openedAt: number;
  /** The agent's last terminal_send or terminal_read (the idle cap counts from it); openedAt before any. */
  lastInteractionAt: number;
  /** When the shell last printed anything; null before it has. */
  lastOutputAt: number | null;
  /** terminal_send calls taken. */
  interactions: number;
  /** Set once the shell has exited. */
  exitCode?: number;
}

export interface DriveOutput {
  /** Output since the reader's cursor, ANSI stripped, at most the asked characters. */
  text: string;
  /** More output is waiting past `text` (read again). */
  truncated: boolean;
  /** Output the reader had not read was dropped from the ring before this read (a marker line leads `text`). */
  dropped: boolean;
  state: DriveState;
  exitCode?: number;
}

/** How a drive ended, as the reaper or closer saw it. */
export interface DriveEnd {
  reason: DriveEndReason;
  /** Milliseconds since the agent's last interaction. */
  idleMs: number;
  /** The shell printed output within PRODUCING_WINDOW_MS before the end. */
  wasProducing: boolean;
}
