// When a schedule fires next, and how many fires a gap skipped: croner for cron expressions, arithmetic otherwise.
import { Cron, CronPattern } from 'croner';
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

/** Fires of a cron schedule read for its shortest gap, beyond the gaps within a day that its fields give. */
export const CRON_GAP_SCAN_FIRES = 100;

const DAY_SECONDS = 86_400;
const TWO_DAYS_MS = 2 * DAY_SECONDS * 1_000;

function setIndexes(bits: readonly number[]): number[] {
  return bits.flatMap((bit, index) => (bit === 0 ? [] : [index]));
}

/**
 * The shortest time between two consecutive fires of a cron schedule, in ms (Infinity when it fires once at most).
 * Within a day every firing day fires at the same times (its second, minute and hour fields), so those gaps are
 * exact whatever part of the day they fall in; the next CRON_GAP_SCAN_FIRES fires add the gaps across days. When
 * those fires stay within two days, the gap from one day's last fire to the next day's first is counted as if the
 * days were consecutive, which may be shorter than the schedule's but never longer.
 */
export function shortestCronGapMs(expr: string, tz: string, now: number): number {
  const pattern = new CronPattern(expr, tz);
  const seconds = setIndexes(pattern.second);
  const minutes = setIndexes(pattern.minute);
  const hours = setIndexes(pattern.hour);
  let shortest = Infinity;
  let first: number | undefined;
  let previous: number | undefined;
  for (const hour of hours) {
    for (const minute of minutes) {
      for (const second of seconds) {
        const at = hour * 3_600 + minute * 60 + second;
        if (previous !== undefined) shortest = Math.min(shortest, (at - previous) * 1_000);
        first ??= at;
        previous = at;
      }
    }
  }
  const fires = cronOf(expr, tz)
    .nextRuns(CRON_GAP_SCAN_FIRES, new Date(now))
    .map((date) => date.getTime());
  for (let index = 1; index < fires.length; index += 1)
    shortest = Math.min(shortest, (fires[index] ?? 0) - (fires[index - 1] ?? 0));
  const span = (fires.at(-1) ?? 0) - (fires[0] ?? 0);
  if (fires.length === CRON_GAP_SCAN_FIRES && span < TWO_DAYS_MS && first !== undefined && previous !== undefined) {
    shortest = Math.min(shortest, (DAY_SECONDS - previous + first) * 1_000);
  }
  return shortest;
}

/** Throws `invalid_params` naming `schedule.expr` when the schedule fires closer together than `minIntervalMs`. */
export function assertCronGap(expr: string, tz: string, now: number, minIntervalMs: number): void {
  const shortest = shortestCronGapMs(expr, tz, now);
  if (shortest < minIntervalMs) {
    throw invalidParams(
      `schedule.expr: cron expression '${expr}' fires ${shortest} ms apart at its closest; fires must be at least ${minIntervalMs} ms apart (scheduler.minIntervalMs)`,
      'schedule.expr',
    );
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
  if (schedule.kind === 'interval')
    return Math.min(MAX_COUNTED_MISSED_FIRES, Math.floor((nowMs - dueMs) / schedule.everyMs) + 1);
  const cron = cronOf(schedule.expr, schedule.tz);
  let count = 1;
  let at = cron.nextRun(new Date(dueMs));
  while (at !== null && at.getTime() <= nowMs && count < MAX_COUNTED_MISSED_FIRES) {
    count += 1;
    at = cron.nextRun(at);
  }
  return count;
}
