// Media files on disk: the private directory, atomic writes (temp file + rename), and removal.
import { chmod, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Owner only, like the data dir (DESIGN §3 "Files in the data dir are 0600, the dir 0700"). */
export const MEDIA_DIR_MODE = 0o700;
export const MEDIA_FILE_MODE = 0o600;

/** Names of files being written start with this; no saved id starts with a dot, so none is ever served. */
export const TEMP_PREFIX = '.tmp-';

/** Creates the directory 0700, or takes group and other permissions off one that is looser. */
export async function prepareMediaDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: MEDIA_DIR_MODE });
  const { mode } = await stat(dir);
  if ((mode & 0o077) !== 0) await chmod(dir, mode & 0o700);
}

/** Readers see the whole file or none of it: the bytes go to a temp file that is renamed into place. */
export async function writeAtomically(dir: string, name: string, data: Buffer): Promise<void> {
  const temp = join(dir, `${TEMP_PREFIX}${name}`);
  try {
    await writeFile(temp, data, { mode: MEDIA_FILE_MODE, flag: 'wx' });
    await rename(temp, join(dir, name));
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export async function removeMediaFile(dir: string, name: string): Promise<void> {
  await rm(join(dir, name), { force: true });
}
