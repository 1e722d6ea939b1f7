// Loads the skills folders once: each sub-folder holding a SKILL.md becomes a skill or a rejection naming the rule or
// cap it broke (manifest, body, injection, duplicate name, skills.maxSkills).
import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { SkillsConfig } from '../config/index.js';
import { parseSkillManifest } from './skill-manifest.js';
import type { DirSkill, SkillLoad, SkillRejection } from './types.js';

export const SKILL_FILE = 'SKILL.md';
/** Files beside a SKILL.md that skills.list names at most, and how deep it looks for them. */
export const MAX_LISTED_FILES = 200;
export const MAX_LISTED_DEPTH = 4;
/** Sub-folders of one skills folder looked at, skills or not: bounds a load of a folder that is not a skills folder. */
export const MAX_FOLDERS_SCANNED = 10_000;

type LoaderCaps = Pick<SkillsConfig, 'maxSkills' | 'maxManifestChars' | 'maxBodyChars'>;

async function entriesOf(dir: string, log: Logger): Promise<Dirent[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).slice(0, MAX_FOLDERS_SCANNED);
  } catch (error) {
    log.warn({ err: error, dir }, 'a skills folder cannot be read; its skills are not loaded');
    return [];
  }
}

/** The regular files under `dir` (not SKILL.md at its top), relative and `/`-separated; symlinks are not followed. */
export async function filesBeside(dir: string): Promise<string[]> {
  const files: string[] = [];
  async function walk(relative: string, depth: number): Promise<void> {
    if (depth > MAX_LISTED_DEPTH) return;
    const entries = await readdir(join(dir, relative), { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (files.length >= MAX_LISTED_FILES) return;
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(path, depth + 1);
      else if (entry.isFile() && path !== SKILL_FILE) files.push(path);
    }
  }
  await walk('', 0);
  return files;
}

/** The folder (through a symlink too) when it holds a SKILL.md file, else undefined. */
async function skillFolder(parent: string, entry: Dirent): Promise<string | undefined> {
  if (!entry.isDirectory() && !entry.isSymbolicLink()) return undefined;
  try {
    const dir = await realpath(join(parent, entry.name));
    if (!(await stat(dir)).isDirectory()) return undefined;
    return (await lstat(join(dir, SKILL_FILE))).isFile() ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** The file's text, or why it is not read: larger than the caps allow, or unreadable. */
async function readBounded(path: string, maxBytes: number, caps: LoaderCaps): Promise<string | { reason: string }> {
  try {
    const { size } = await stat(path);
    if (size > maxBytes)
      return {
        reason: `SKILL.md is ${size} bytes, more than skills.maxManifestChars (${caps.maxManifestChars}) and skills.maxBodyChars (${caps.maxBodyChars}) allow`,
      };
    return await readFile(path, 'utf8');
  } catch {
    return { reason: 'SKILL.md cannot be read' };
  }
}

/**
 * Loads every skill of `dirs` in order (folders sorted by name within each). The first folder of a name wins; a
 * SKILL.md larger than the manifest and body caps could hold at 4 bytes a character is refused before it is read.
 */
export async function loadSkills(dirs: readonly string[], caps: LoaderCaps, log: Logger): Promise<SkillLoad> {
  const skills: DirSkill[] = [];
  const rejected: SkillRejection[] = [];
  const taken = new Set<string>();
  const maxFileBytes = (caps.maxManifestChars + caps.maxBodyChars + 16) * 4;
  for (const parent of dirs) {
    for (const entry of await entriesOf(parent, log)) {
      const dir = await skillFolder(parent, entry);
      if (dir === undefined) continue;
      const skill = entry.name;
      if (skills.length >= caps.maxSkills) {
        rejected.push({ skill, reason: `over skills.maxSkills (${caps.maxSkills}): the registry is full` });
        continue;
      }
      const text = await readBounded(join(dir, SKILL_FILE), maxFileBytes, caps);
      if (typeof text !== 'string') {
        rejected.push({ skill, reason: text.reason });
        continue;
      }
      const parsed = parseSkillManifest(text, skill, caps);
      if (!parsed.ok) {
        rejected.push({ skill, reason: parsed.reason });
        continue;
      }
      const { manifest } = parsed;
      if (taken.has(manifest.name)) {
        rejected.push({ skill, reason: `duplicate name: '${manifest.name}' is already loaded from an earlier folder` });
        continue;
      }
      taken.add(manifest.name);
      skills.push({ ...manifest, dir, files: await filesBeside(dir) });
    }
  }
  return { skills, rejected };
}
