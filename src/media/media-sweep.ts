// The media sweep: deletes expired files and their records, and files with no record, every media.sweepIntervalMs.
import { opendir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { createPeriodicTask } from '../periodic-task.js';
import type { MediaPort } from '../store/index.js';
import { removeMediaFile, TEMP_PREFIX } from './media-files.js';

/** Records read and files deleted per step; a sweep goes on step by step until nothing is left. */
const MEDIA_SWEEP_BATCH = 500;

export interface MediaSweepResult {
  /** Expired files deleted with their records. */
  expired: number;
  /** Files found with no record (a crash between write and record, or a record removed by hand) and deleted. */
  orphans: number;
}

export interface MediaSweeper {
  /** Sweeps now; a call while one runs joins it. */
  sweep(): Promise<MediaSweepResult>;
  start(): void;
  /** Stops the timer and waits for a running sweep. */
  stop(): Promise<void>;
}

export interface MediaSweeperDeps {
  port: MediaPort;
  dir: string;
  /** 0: no timer; sweep() still works. */
  intervalMs: number;
  /** Ids being saved: their file may be on disk a moment before their record. */
  inFlight: ReadonlySet<string>;
  now: () => number;
  log: Logger;
}

export function createMediaSweeper({ port, dir, intervalMs, inFlight, now, log }: MediaSweeperDeps): MediaSweeper {
  // Sweeps never overlap however long one takes: the next is scheduled once one ended.
  const task = createPeriodicTask({
    run: sweepOnce,
    intervalMs: () => intervalMs,
    onTimedFailure: (error) => log.error({ err: error }, 'media sweep failed'),
  });

  async function sweepExpired(): Promise<number> {
    let removed = 0;
    for (;;) {
      const ids = await port.expired(now(), MEDIA_SWEEP_BATCH);
      // Files first: a crash in between leaves an expired record (still 410), never a file nobody can find.
      for (const id of ids) await removeMediaFile(dir, id);
      const batch = await port.remove(ids);
      removed += batch;
      // A full batch that removed nothing would come back unchanged: stop rather than loop on it.
      if (ids.length < MEDIA_SWEEP_BATCH || batch === 0 || task.isStopped()) return removed;
    }
  }

  async function removeOrphans(names: string[]): Promise<number> {
    // A name is skipped while its save runs: the in-flight check comes before the record lookup, so a save that
    // finishes in between is seen by the lookup.
    const candidates = names.filter(
      (name) => !inFlight.has(name.startsWith(TEMP_PREFIX) ? name.slice(TEMP_PREFIX.length) : name),
    );
    const known = await port.existing(candidates);
    const orphans = candidates.filter((name) => !known.has(name));
    for (const name of orphans) await removeMediaFile(dir, name);
    return orphans.length;
  }

  async function sweepOrphans(): Promise<number> {
    let removed = 0;
    let names: string[] = [];
    for await (const entry of await opendir(dir)) {
      if (!entry.isFile()) continue;
      names.push(entry.name);
      if (names.length === MEDIA_SWEEP_BATCH) {
        removed += await removeOrphans(names);
        names = [];
      }
      if (task.isStopped()) return removed;
    }
    return removed + (names.length > 0 ? await removeOrphans(names) : 0);
  }

  async function sweepOnce(): Promise<MediaSweepResult> {
    const expired = await sweepExpired();
    const orphans = await sweepOrphans();
    if (expired > 0 || orphans > 0) log.info({ expired, orphans }, 'media sweep');
    return { expired, orphans };
  }

  return {
    sweep: task.runNow,
    start: task.start,
    stop: task.stop,
  };
}
