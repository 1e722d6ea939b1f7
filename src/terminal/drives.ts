// The drive table: opens jailed shells in agents' workspaces, owns them per session, enforces the caps and reaps.
import { chmod, mkdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Logger } from 'pino';
import type { TerminalConfig } from '../config/index.js';
import {
  terminalCwdMissing,
  terminalCwdOutsideWorkspace,
  terminalDisabled,
  terminalDriveExited,
  terminalDriveNotFound,
  terminalInteractionsExhausted,
  terminalSendTooLong,
  terminalWorkspaceNameInvalid,
} from '../errors.js';
import { createDrive, type Drive } from './drive.js';
import { driveEnd, dueEviction, sweepIntervalMs } from './reaper.js';
import { ensureBwrap, shellLaunch } from './sandbox.js';
import type { DriveEnd, DriveEndReason, DriveInfo, DriveOutput } from './types.js';

/** The pty a drive's shell gets. */
const PTY_COLUMNS = 120;
const PTY_ROWS = 40;

export interface DrivesDeps {
  /** The live `terminal:` section: caps and bounds apply at each call. */
  config: () => TerminalConfig;
  /** Agents' workspaces are `<workspaceRoot>/<agentId>`. */
  workspaceRoot: string;
  now: () => number;
  newId: () => string;
  log: Logger;
  /** bubblewrap's binary; 'bwrap' (from PATH) when absent. */
  bwrapPath?: string;
}

export interface OpenDrive {
  agentId: string;
  sessionKey: string;
  ownerId: string;
  /** Relative to the agent's workspace; the workspace itself when absent. */
  cwd?: string;
}

export interface Drives {
  open(request: OpenDrive): Promise<DriveInfo>;
  /** Types `text` as given (no newline added); the call past maxInteractions ends the drive and fails. */
  send(driveId: string, text: string, sessionKey: string): DriveInfo;
  /** Output since the agent's cursor, waiting up to waitMs (cut to maxWaitMs) for some. */
  read(driveId: string, options: { waitMs?: number; maxChars?: number }, sessionKey: string): Promise<DriveOutput>;
  /** Operators: the newest output; the agent's cursor stays. */
  peek(driveId: string, maxChars?: number): DriveOutput;
  /** Kills the shell and resolves once it exited; with `sessionKey`, only that session's drive. */
  close(driveId: string, reason: DriveEndReason, sessionKey?: string): Promise<DriveInfo>;
  get(driveId: string): DriveInfo | undefined;
  list(): DriveInfo[];
  closeAll(reason: 'shutdown'): Promise<void>;
  /** Called once per drive that ends, however it ended; returns the unsubscribe. */
  onEnded(listener: (info: DriveInfo, end: DriveEnd) => void): () => void;
}

interface Entry {
  drive: Drive;
  /** Reads waiting on output right now: the drive is not idle while one waits. */
  reading: number;
  /** Orders drives by last use where lastInteractionAt ties (several uses within one millisecond). */
  lastUse: number;
  ending?: Promise<DriveInfo>;
}

export function createDrives(deps: DrivesDeps): Drives {
  const { now, log } = deps;
  const bwrapPath = deps.bwrapPath ?? 'bwrap';
  const table = new Map<string, Entry>();
  const listeners = new Set<(info: DriveInfo, end: DriveEnd) => void>();
  let sweepTimer: NodeJS.Timeout | undefined;
  let uses = 0;

  const snapshot = (entry: Entry): DriveInfo => ({ ...entry.drive.info });

  function owned(driveId: string, sessionKey: string | undefined): Entry {
    const entry = table.get(driveId);
    if (entry === undefined || (sessionKey !== undefined && entry.drive.info.sessionKey !== sessionKey)) {
      throw terminalDriveNotFound(driveId);
    }
    return entry;
  }

  function end(entry: Entry, reason: DriveEndReason): Promise<DriveInfo> {
    if (entry.ending !== undefined) return entry.ending;
    const { info } = entry.drive;
    table.delete(info.driveId);
    const ended = driveEnd(info, reason, now());
    entry.drive.wake();
    entry.ending = (async () => {
      await entry.drive.kill();
      const last = snapshot(entry);
      log.info({ driveId: info.driveId, agentId: info.agentId, reason, idleMs: ended.idleMs }, 'terminal drive ended');
      for (const listener of [...listeners]) {
        try {
          listener({ ...last }, { ...ended });
        } catch (error) {
          log.error({ err: error, driveId: info.driveId }, 'a terminal drive end listener failed');
        }
      }
      return last;
    })();
    return entry.ending;
  }

  function endQuietly(entry: Entry, reason: DriveEndReason): void {
    end(entry, reason).catch((error: unknown) =>
      log.error({ err: error, driveId: entry.drive.info.driveId }, 'ending a terminal drive failed'),
    );
  }

  function schedule(): void {
    if (sweepTimer !== undefined || table.size === 0) return;
    sweepTimer = setTimeout(sweep, sweepIntervalMs(deps.config()));
    sweepTimer.unref();
  }

  function sweep(): void {
    sweepTimer = undefined;
    const config = deps.config();
    const at = now();
    for (const entry of [...table.values()]) {
      const reason = dueEviction(entry.drive.info, config, at, entry.reading > 0);
      if (reason !== undefined) endQuietly(entry, reason);
    }
    schedule();
  }

  /** The least recently used drives to end so one more of `agentId` fits both max_sessions caps. */
  function evictionsFor(agentId: string, config: TerminalConfig): Entry[] {
    const byUse = [...table.values()].sort((a, b) => a.lastUse - b.lastUse);
    const victims = new Set<Entry>();
    const agentDrives = byUse.filter((entry) => entry.drive.info.agentId === agentId);
    for (const entry of agentDrives.slice(0, Math.max(0, agentDrives.length - config.maxSessionsPerAgent + 1))) {
      victims.add(entry);
    }
    const rest = byUse.filter((entry) => !victims.has(entry));
    for (const entry of rest.slice(0, Math.max(0, rest.length - config.maxSessions + 1))) victims.add(entry);
    return [...victims];
  }

  async function agentWorkspace(agentId: string): Promise<string> {
    if (agentId === '' || agentId === '.' || agentId === '..' || agentId.includes('/') || agentId.includes('\0')) {
      throw terminalWorkspaceNameInvalid(agentId);
    }
    await mkdir(deps.workspaceRoot, { recursive: true, mode: 0o700 });
    const dir = join(deps.workspaceRoot, agentId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    return realpath(dir);
  }

  /** The cwd relative to the workspace ('' for itself), refused when absolute, climbing out, or a symlink out. */
  async function relativeCwd(workspaceDir: string, cwd: string): Promise<string> {
    if (isAbsolute(cwd) || cwd.split(/[\\/]/).includes('..')) throw terminalCwdOutsideWorkspace(cwd);
    let real: string;
    try {
      real = await realpath(join(workspaceDir, cwd));
    } catch {
      throw terminalCwdMissing(cwd);
    }
    const inside = relative(workspaceDir, real);
    if (inside.startsWith('..') || isAbsolute(inside)) throw terminalCwdOutsideWorkspace(cwd);
    if (!(await stat(real)).isDirectory()) throw terminalCwdMissing(cwd);
    return inside.split(sep).join('/');
  }

  return {
    async open(request) {
      const config = deps.config();
      if (!config.enabled) throw terminalDisabled();
      if (config.sandbox === 'bwrap') await ensureBwrap(bwrapPath);
      const workspaceDir = await agentWorkspace(request.agentId);
      const launch = shellLaunch({
        config,
        bwrapPath,
        workspaceDir,
        relativeCwd: await relativeCwd(workspaceDir, request.cwd ?? ''),
        hostEnv: process.env,
      });
      const victims = evictionsFor(request.agentId, config);
      // The native addon loads with the first drive: a gateway whose agents never open one does not pay for it.
      const { spawn: spawnPty } = await import('@lydell/node-pty');
      const pty = spawnPty(launch.file, launch.args, {
        name: 'xterm-256color',
        cols: PTY_COLUMNS,
        rows: PTY_ROWS,
        cwd: launch.cwd,
        env: launch.env,
      });
      const openedAt = now();
      const info: DriveInfo = {
        driveId: deps.newId(),
        agentId: request.agentId,
        sessionKey: request.sessionKey,
        ownerId: request.ownerId,
        state: 'open',
        cwd: launch.shellCwd,
        openedAt,
        lastInteractionAt: openedAt,
        lastOutputAt: null,
        interactions: 0,
      };
      const entry: Entry = {
        drive: createDrive({ info, pty, now, outputBufferChars: () => deps.config().outputBufferChars }),
        reading: 0,
        lastUse: (uses += 1),
      };
      table.set(info.driveId, entry);
      log.info({ driveId: info.driveId, agentId: info.agentId, sandbox: config.sandbox }, 'terminal drive opened');
      await Promise.all(victims.map((victim) => end(victim, 'max_sessions')));
      schedule();
      return snapshot(entry);
    },

    send(driveId, text, sessionKey) {
      const entry = owned(driveId, sessionKey);
      const config = deps.config();
      if (text.length > config.maxSendChars) throw terminalSendTooLong(text.length, config.maxSendChars);
      const { info } = entry.drive;
      if (info.state === 'exited') throw terminalDriveExited(driveId, info.exitCode);
      if (info.interactions >= config.maxInteractions) {
        endQuietly(entry, 'max_interactions');
        throw terminalInteractionsExhausted(driveId, config.maxInteractions);
      }
      info.interactions += 1;
      info.lastInteractionAt = now();
      entry.lastUse = uses += 1;
      entry.drive.write(text);
      return snapshot(entry);
    },

    async read(driveId, options, sessionKey) {
      const entry = owned(driveId, sessionKey);
      const config = deps.config();
      const waitMs = Math.min(Math.max(0, options.waitMs ?? 0), config.maxWaitMs);
      const maxChars = Math.min(options.maxChars ?? config.maxReadChars, config.maxReadChars);
      const { info } = entry.drive;
      info.lastInteractionAt = now();
      entry.lastUse = uses += 1;
      entry.reading += 1;
      try {
        return await entry.drive.read(waitMs, maxChars);
      } finally {
        entry.reading -= 1;
        info.lastInteractionAt = now();
      }
    },

    peek(driveId, maxChars) {
      const config = deps.config();
      return owned(driveId, undefined).drive.peek(Math.min(maxChars ?? config.maxReadChars, config.maxReadChars));
    },

    close(driveId, reason, sessionKey) {
      try {
        return end(owned(driveId, sessionKey), reason);
      } catch (error) {
        return Promise.reject(error);
      }
    },

    get(driveId) {
      const entry = table.get(driveId);
      return entry === undefined ? undefined : snapshot(entry);
    },

    list() {
      return [...table.values()].map(snapshot).sort((a, b) => a.openedAt - b.openedAt);
    },

    async closeAll(reason) {
      clearTimeout(sweepTimer);
      sweepTimer = undefined;
      await Promise.all([...table.values()].map((entry) => end(entry, reason)));
    },

    onEnded(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
