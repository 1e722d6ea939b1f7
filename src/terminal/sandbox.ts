// How a drive's shell is started: the bubblewrap jail's argv (or the bare shell under sandbox: none), its clean environment, and the bwrap check.
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import type { TerminalConfig } from '../config/index.js';
import { terminalSandboxUnavailable } from '../errors.js';

/** Where the agent's workspace appears inside the jail (its cwd and HOME). */
export const JAIL_WORKSPACE = '/workspace';

/** The PATH every shell gets. */
const SHELL_PATH = '/usr/local/bin:/usr/bin:/bin';

/** How long `bwrap --version` may take before bubblewrap counts as unusable. */
const BWRAP_CHECK_TIMEOUT_MS = 5_000;

/** Top-level links or directories a merged-/usr host has as symlinks into /usr and an older host as directories. */
const ROOT_LIB_DIRS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;

/** What of /etc a shell and common tools need (users, the loader cache, alternatives, CA certificates, terminfo, the zone). */
const ETC_FILES = [
  '/etc/passwd',
  '/etc/group',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/ssl/certs',
  '/etc/ca-certificates',
  '/etc/terminfo',
  '/etc/localtime',
  '/etc/nsswitch.conf',
] as const;

/** Name resolution files, bound only when the jail has the network. */
const ETC_NETWORK_FILES = ['/etc/resolv.conf', '/etc/hosts', '/etc/host.conf', '/etc/gai.conf'] as const;

export interface ShellLaunch {
  file: string;
  args: string[];
  /** The cwd node-pty starts `file` in (the host's side). */
  cwd: string;
  /** The whole environment `file` gets: the gateway's own never passes. */
  env: Record<string, string>;
  /** The drive's working directory as the shell sees it. */
  shellCwd: string;
}

export interface LaunchInput {
  config: TerminalConfig;
  bwrapPath: string;
  /** The agent's workspace on the host (made before). */
  workspaceDir: string;
  /** The cwd relative to the workspace ('' for the workspace itself). */
  relativeCwd: string;
  /** The gateway's environment, for passEnv. */
  hostEnv: NodeJS.ProcessEnv;
}

/** PATH, HOME, TERM and LANG, then terminal.env, then the passEnv names the gateway has: nothing else. */
export function shellEnv(config: TerminalConfig, home: string, hostEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = { PATH: SHELL_PATH, HOME: home, TERM: 'xterm-256color', LANG: 'C.UTF-8' };
  Object.assign(env, config.env);
  for (const name of config.passEnv) {
    const value = hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

export function shellLaunch(input: LaunchInput): ShellLaunch {
  const { config, workspaceDir, relativeCwd } = input;
  if (config.sandbox === 'none') {
    const shellCwd = relativeCwd === '' ? workspaceDir : `${workspaceDir}/${relativeCwd}`;
    return {
      file: config.shell,
      args: [],
      cwd: shellCwd,
      env: shellEnv(config, workspaceDir, input.hostEnv),
      shellCwd,
    };
  }
  const shellCwd = relativeCwd === '' ? JAIL_WORKSPACE : `${JAIL_WORKSPACE}/${relativeCwd}`;
  const env = shellEnv(config, JAIL_WORKSPACE, input.hostEnv);
  return {
    file: input.bwrapPath,
    args: [...bwrapArgs(config, workspaceDir, shellCwd, env), '--', config.shell],
    // bwrap itself gets the clean environment too: its process stays pid 1 of the jail, where /proc/1/environ is readable.
    cwd: workspaceDir,
    env,
    shellCwd,
  };
}

/**
 * The jail: /usr and the root library links read-only, a minimal /etc, private /proc, /dev and /tmp, the workspace
 * the only writable place (the root is remounted read-only), every namespace unshared (the network too unless
 * terminal.network), and the environment cleared. No --new-session: the pty is the drive's own (its master is the
 * gateway's, not anyone's terminal), so TIOCSTI can only type into the drive itself, while a new session would take
 * the shell's job control and make an agent's Ctrl-C kill the jail.
 */
export function bwrapArgs(
  config: TerminalConfig,
  workspaceDir: string,
  shellCwd: string,
  env: Record<string, string>,
): string[] {
  const args = ['--unshare-all', ...(config.network ? ['--share-net'] : []), '--die-with-parent'];
  args.push('--ro-bind', '/usr', '/usr');
  for (const dir of ROOT_LIB_DIRS) args.push(...rootDirArgs(dir));
  const etc = config.network ? [...ETC_FILES, ...ETC_NETWORK_FILES] : ETC_FILES;
  for (const path of etc) if (existsSync(path)) args.push('--ro-bind', path, path);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  args.push('--bind', workspaceDir, JAIL_WORKSPACE, '--remount-ro', '/', '--chdir', shellCwd);
  args.push('--clearenv');
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
  return args;
}

/** A merged-/usr link (`/bin -> usr/bin`) is recreated as the same link; a real directory is bound read-only. */
function rootDirArgs(path: string): string[] {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return ['--symlink', readlinkSync(path), path];
    if (stat.isDirectory()) return ['--ro-bind', path, path];
  } catch {
    // Absent on this host (no /lib32 on most): nothing to recreate.
  }
  return [];
}

const bwrapWorks = new Set<string>();

/** Refuses (terminalSandboxUnavailable) unless `<bwrapPath> --version` runs; a success is remembered, a failure retried. */
export async function ensureBwrap(bwrapPath: string): Promise<void> {
  if (bwrapWorks.has(bwrapPath)) return;
  const ok = await new Promise<boolean>((resolve) => {
    execFile(bwrapPath, ['--version'], { timeout: BWRAP_CHECK_TIMEOUT_MS, env: { PATH: SHELL_PATH } }, (error) =>
      resolve(error === null),
    );
  });
  if (!ok) throw terminalSandboxUnavailable(bwrapPath);
  bwrapWorks.add(bwrapPath);
}
