// When a schedule fires next, and how many fires a gap skipped: croner for cron expressions, arithmetic otherwise.
import { Cron } from 'croner';
import { invalidParams } from '../errors.js';
import type { JobSchedule } from '../store/index.js';

/** The zone a job gets when it names none; stated in every job entry so nothing silently follows the host's zone. */
export const DEFAULT_TZ = 'UTC';

/** Missed fires counted one by one at most this many; a longer gap reports this number. */
export const MAX_COUNTED_MISSED_FIRES = 1_000;

/** Throws `invalid_params` naming `schedule.tz` unless `tz` is an IANA zone this runtime knows. */
export function assertTimeZone(tz: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw invalidParams(`schedule.tz: unknown IANA time zone '${tz}'`, 'schedule.tz');
  }
}

function cronOf(expr: string, tz: string): Cron {
  try {
    return new Cron(expr, { timezone: tz, paused: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalidParams(`schedule.expr: invalid cron expression '${expr}' (${reason})`, 'schedule.expr');
  }
}

/** Throws `invalid_params` naming the param when the expression cannot be parsed or never fires. */
export function assertCronExpression(expr: string, tz: string, now: number): void {
  if (cronOf(expr, tz).nextRun(new Date(now)) === null) {
    throw invalidParams(`schedule.expr: cron expression '${expr}' never fires after now`, 'schedule.expr');
  }
}

/**
 * The first fire strictly after `afterMs`, or null when the schedule has none left (a `once` job past its
 * instant). Interval fires stay on their grid: `anchorMs` plus a whole number of intervals.
 */
export function nextFireAfter(schedule: JobSchedule, afterMs: number, anchorMs: number): number | null {
  switch (schedule.kind) {
    case 'cron':
      return cronOf(schedule.expr, schedule.tz).nextRun(new Date(afterMs))?.getTime() ?? null;
    case 'interval': {
      if (afterMs < anchorMs) return anchorMs;
      return anchorMs + (Math.floor((afterMs - anchorMs) / schedule.everyMs) + 1) * schedule.everyMs;
    }
    case 'once':
      return schedule.atMs > afterMs ? schedule.atMs : null;
  }
}

/** Fires due from `dueMs` (itself a fire) up to and including `nowMs`, capped at MAX_COUNTED_MISSED_FIRES. */
export function countFires(schedule: JobSchedule, dueMs: number, nowMs: number): number {
  if (schedule.kind === 'once') return 1;
  if (schedule.kind === 'interval') return Math.min(MAX_COUNTED_MISSED_FIRES, Math.floor((nowMs - dueMs) / schedule.everyMs) + 1);
  const cron = cronOf(schedule.expr, schedule.tz);
  let count = 1;
  let at = cron.nextRun(new Date(dueMs));
  while (at !== null && at.getTime() <= nowMs && count < MAX_COUNTED_MISSED_FIRES) {
    count += 1;
    at = cron.nextRun(at);
  }
  return count;
}
