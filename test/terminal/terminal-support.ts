// Helpers for the drive table tests: a real drive table over a temp data dir, command runs that wait for their end marker, end waits.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { terminalConfigSchema, type TerminalConfig } from '../../src/config/index.js';
import { createDrives, type Drives } from '../../src/terminal/drives.js';
import type { DriveEnd, DriveInfo } from '../../src/terminal/types.js';
import { captureLogs } from '../support/log-capture.js';

export interface DriveTable {
  drives: Drives;
  /** The config the table reads live: a test may change it between calls. */
  config: TerminalConfig;
  dataDir: string;
  workspaceRoot: string;
  /** Every end the table reported, in order. */
  ends: { info: DriveInfo; end: DriveEnd }[];
  /** Resolves with the end of `driveId` (already reported or still to come). */
  ended(driveId: string): Promise<{ info: DriveInfo; end: DriveEnd }>;
  dispose(): Promise<void>;
}

export async function driveTable(
  terminal: Record<string, unknown> = {},
  options: { bwrapPath?: string } = {},
): Promise<DriveTable> {
  const dataDir = await mkdtemp(join(tmpdir(), 'terminal-data-'));
  const workspaceRoot = join(dataDir, 'workspace');
  const config = terminalConfigSchema.parse({ enabled: true, ...terminal });
  const drives = createDrives({
    config: () => config,
    workspaceRoot,
    now: Date.now,
    newId: randomUUID,
    log: captureLogs().log,
    ...(options.bwrapPath === undefined ? {} : { bwrapPath: options.bwrapPath }),
  });
  const ends: { info: DriveInfo; end: DriveEnd }[] = [];
  const waiters: (() => void)[] = [];
  drives.onEnded((info, end) => {
    ends.push({ info, end });
    for (const waiter of waiters.splice(0)) waiter();
  });
  return {
    drives,
    config,
    dataDir,
    workspaceRoot,
    ends,
    ended(driveId) {
      return new Promise((resolve) => {
        const check = () => {
          const found = ends.find((entry) => entry.info.driveId === driveId);
          if (found === undefined) waiters.push(check);
          else resolve(found);
        };
        check();
      });
    },
    async dispose() {
      await drives.closeAll('shutdown');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Reads until `pattern` shows in the output read so far (each read waits for output), failing after `limitMs`. */
export async function readUntil(
  drives: Drives,
  driveId: string,
  sessionKey: string,
  pattern: RegExp,
  limitMs = 10_000,
): Promise<string> {
  let text = '';
  const giveUpAt = Date.now() + limitMs;
  while (!pattern.test(text)) {
    if (Date.now() > giveUpAt) throw new Error(`no ${String(pattern)} in the drive's output: ${JSON.stringify(text)}`);
    const output = await drives.read(driveId, { waitMs: 1_000 }, sessionKey);
    text += output.text;
    if (output.state === 'exited' && !pattern.test(text)) {
      throw new Error(`the shell exited before ${String(pattern)}: ${JSON.stringify(text)}`);
    }
  }
  return text;
}

/**
 * Types `command` and waits for its end: the output after the typed line, and the command's exit status. The end marker
 * is printed by the shell; the typed line carries `$?` unexpanded, so it never matches.
 */
export async function run(
  drives: Drives,
  driveId: string,
  sessionKey: string,
  command: string,
): Promise<{ output: string; status: number }> {
  drives.send(driveId, `${command}; echo "__done_$?__"\n`, sessionKey);
  const text = await readUntil(drives, driveId, sessionKey, /__done_(\d+)__/);
  const match = /__done_(\d+)__/.exec(text);
  const end = match?.index ?? text.length;
  // A line typed before the shell is ready is echoed twice (by the tty, then by readline): the output follows the last.
  const typedEnd = text.lastIndexOf('__"\n', end);
  return {
    output: text.slice(typedEnd < 0 ? 0 : typedEnd + 4, end),
    status: Number(match?.[1]),
  };
}

/** The pids of this process's children (the shells' ptys and whatever they started directly). */
export async function childPids(): Promise<number[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const pids: number[] = [];
  for (const task of await readdir('/proc/self/task')) {
    const children = await readFile(`/proc/self/task/${task}/children`, 'utf8').catch(() => '');
    for (const pid of children.split(' ')) if (pid.trim() !== '') pids.push(Number(pid));
  }
  return pids;
}
