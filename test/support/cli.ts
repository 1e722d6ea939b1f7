// Runs the agent-gateway CLI (src/cli.ts as bundled for this test run, or the `npm run build` bundle) in a child process
// with its own AGENT_GATEWAY_HOME.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What `npm start` and the installed `agent-gateway` binary run: the CLI bundled by `npm run build`. */
export const BUNDLED_CLI = 'dist/src/cli.bundle.mjs';
export const BUNDLED_CLI_PATH = fileURLToPath(new URL(`../../${BUNDLED_CLI}`, import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Variables of ours a first start reads to find models (src/cli/detect-models.ts); a test sets them itself. */
const DETECTION_ENV = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_BASE_URL',
];

/**
 * The child's environment: ours, minus anything that would change which token or home the CLI uses, how it logs, or
 * what a first start finds (no provider keys, and no local servers probed unless `extra` names them).
 */
export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AGENT_GATEWAY_HOME: home, AGENT_GATEWAY_PROBE_URLS: '' };
  delete env.AGENT_GATEWAY_TOKEN;
  delete env.LOG_LEVEL;
  delete env.LOG_FORMAT;
  for (const name of DETECTION_ENV) delete env[name];
  return { ...env, ...extra };
}

/**
 * Absolute path of the current src/cli.ts, bundled once for the run by cli-bundle-global-setup.ts (a start under tsx
 * took seconds of compiling).
 */
export function sourceCli(): string {
  return inject('cliBundle');
}

function sourceCliArgs(): string[] {
  return [sourceCli()];
}

export function runCli(args: string[], home: string, extraEnv: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...sourceCliArgs(), ...args],
      { cwd: ROOT, env: cliEnv(home, extraEnv), timeout: 20_000 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') {
          reject(error);
          return;
        }
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
  });
}

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  /** Everything written to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout match of `pattern`; rejects if the process exits first or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal name when killed by one). */
  exited: Promise<number | NodeJS.Signals>;
}

/**
 * `entry`: the current sources (default), or BUNDLED_CLI to run the `npm run build` bundle; `extraEnv` is added to (or
 * replaces in) cliEnv's environment.
 */
export function spawnCli(
  args: string[],
  home: string,
  entry: 'source' | typeof BUNDLED_CLI = 'source',
  extraEnv: Record<string, string> = {},
): RunningCli {
  const command = entry === 'source' ? [...sourceCliArgs(), ...args] : [BUNDLED_CLI, ...args];
  const child = spawn(process.execPath, command, { cwd: ROOT, env: cliEnv(home, extraEnv) });
  let out = '';
  let err = '';
  const listeners: (() => void)[] = [];
  const notify = () => {
    for (const listener of listeners.splice(0)) listener();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    notify();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  let hasExited = false;
  const exited = new Promise<number | NodeJS.Signals>((resolve) => {
    child.once('exit', (code, signal) => {
      hasExited = true;
      notify();
      resolve(code ?? signal ?? -1);
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${pattern} in output within ${timeoutMs} ms:\n${out}\n${err}`)),
          timeoutMs,
        );
        const check = () => {
          const match = out.match(pattern);
          if (match !== null) {
            clearTimeout(timer);
            resolve(match);
          } else if (hasExited) {
            clearTimeout(timer);
            reject(new Error(`process exited before ${pattern}:\n${out}\n${err}`));
          } else {
            listeners.push(check);
          }
        };
        check();
      });
    },
  };
}
