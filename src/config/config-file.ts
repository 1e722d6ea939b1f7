// Writes the data dir's config files: a temp file plus rename in the same directory, mode 0600, synced; and removes
// the temp files a killed writer left behind.
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Random bytes in a temp file's name, so two writes of one process never pick the same one. */
const TEMP_NAME_BYTES = 6;

/** `.<file>.<pid>.<hex>.tmp` beside `path`. */
function tempPathOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(TEMP_NAME_BYTES).toString('hex')}.tmp`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether a process with this id runs now (one of another user counts: it answers EPERM). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

/**
 * Deletes the temp files writeAtomically left beside each of `paths` when its process was killed mid-write (one of
 * secrets.yaml holds secrets). Only names of exactly that pattern are touched, and only those whose writer is gone or is
 * this process (an earlier life of the same pid, as in a container); returns the paths deleted.
 */
export async function removeOrphanTempFiles(paths: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const path of paths) {
    const pattern = new RegExp(
      `^\\.${escapeRegExp(basename(path))}\\.(\\d+)\\.[0-9a-f]{${TEMP_NAME_BYTES * 2}}\\.tmp$`,
    );
    const names = await readdir(dirname(path)).catch(() => []);
    for (const name of names) {
      const pid = Number(pattern.exec(name)?.[1]);
      if (!Number.isSafeInteger(pid) || (pid !== process.pid && isRunning(pid))) continue;
      const orphan = join(dirname(path), name);
      await rm(orphan, { force: true });
      removed.push(orphan);
    }
  }
  return removed;
}

/** A reader sees the old file or the new one, never half of one. */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = tempPathOf(path);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.chmod(0o600);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
