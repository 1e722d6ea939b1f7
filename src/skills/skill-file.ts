// Reads a file beside a skill's SKILL.md for skill_read {file}, confined to the skill's folder: `..`, absolute paths
// and symlinks leading out are refused, larger files than skills.maxFileBytes too.
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, resolve, sep } from 'node:path';
import { skillFileNotFound, skillFileRefused, skillFileTooLarge } from '../errors.js';
import { detectInjection } from '../memory/index.js';

/**
 * The text of `file` under `dir` (the skill's folder, already resolved through symlinks). The path is checked as
 * written, then as resolved, and the file is opened without following a last symlink, so a link swapped in after the
 * check is refused rather than followed.
 */
export async function readSkillFile(skill: string, dir: string, file: string, maxBytes: number): Promise<string> {
  if (file.includes('\0')) throw skillFileRefused(file, 'a NUL byte in the path');
  if (isAbsolute(file) || /^[\\/]/.test(file) || /^[A-Za-z]:/.test(file))
    throw skillFileRefused(file, 'an absolute path; name a file relative to the skill folder');
  if (file.split(/[\\/]/).includes('..')) throw skillFileRefused(file, "'..' would leave the skill folder");
  let real: string;
  try {
    real = await realpath(resolve(dir, file));
  } catch {
    throw skillFileNotFound(skill, file);
  }
  if (!real.startsWith(`${dir}${sep}`)) throw skillFileRefused(file, 'it is a symlink out of the skill folder');
  let handle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    throw skillFileNotFound(skill, file);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw skillFileNotFound(skill, file);
    if (stats.size > maxBytes) throw skillFileTooLarge(file, stats.size, maxBytes);
    const text = (await handle.readFile()).toString('utf8');
    const scan = detectInjection(text, Math.max(text.length, 1));
    if (scan.detected) throw skillFileRefused(file, `it fails the injection detector (${scan.patterns.join(', ')})`);
    return text;
  } finally {
    await handle.close();
  }
}
