// The reaper's rules: which cap, if any, ends a drive now, and how often to look.
import type { TerminalConfig } from '../config/index.js';
import type { DriveEnd, DriveInfo, EvictionReason } from './types.js';

/** A drive that printed within this long before it ended counts as still producing (DriveEnd.wasProducing). */
export const PRODUCING_WINDOW_MS = 5_000;

/** The reaper looks at least this often, and at most every few milliseconds however short the caps. */
const MAX_SWEEP_INTERVAL_MS = 5_000;
const MIN_SWEEP_INTERVAL_MS = 10;

/** Half the shortest cap (at most 5 s), so a drive outlives its cap by at most about half of it. */
export function sweepIntervalMs(config: TerminalConfig): number {
  const shortest = Math.min(config.idleMs, config.wallClockMs, MAX_SWEEP_INTERVAL_MS);
  return Math.max(MIN_SWEEP_INTERVAL_MS, Math.floor(shortest / 2));
}

/** wall_clock once the drive is older than wallClockMs; idle once the agent has neither sent nor read for idleMs (a read waiting counts as reading). */
export function dueEviction(
  info: DriveInfo,
  config: TerminalConfig,
  now: number,
  reading: boolean,
): EvictionReason | undefined {
  if (now - info.openedAt >= config.wallClockMs) return 'wall_clock';
  if (!reading && now - info.lastInteractionAt >= config.idleMs) return 'idle';
  return undefined;
}

export function driveEnd(info: DriveInfo, reason: DriveEnd['reason'], now: number): DriveEnd {
  return {
    reason,
    idleMs: Math.max(0, now - info.lastInteractionAt),
    wasProducing: info.lastOutputAt !== null && now - info.lastOutputAt <= PRODUCING_WINDOW_MS,
  };
}
