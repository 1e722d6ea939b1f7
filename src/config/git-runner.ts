// Runs the git CLI against the config history repository: fixed git dir and work tree, a clean environment,
// a timeout, and optional stdin for the plumbing commands that rewrite history.
import { execFile } from 'node:child_process';
import { GatewayError } from '../errors.js';
import { CONFIG_LIMITS } from './limits.js';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitRunner {
  /** Runs git; a non-zero exit is a result, not an error. Throws `unavailable` when git is not installed. */
  run(args: readonly string[], input?: string): Promise<GitResult>;
  /** Runs git and returns stdout; a non-zero exit throws `internal` with git's own message. */
  git(args: readonly string[], input?: string): Promise<string>;
}

export interface GitRunnerOptions {
  gitDir: string;
  workTree: string;
  env: NodeJS.ProcessEnv;
  gitBinary: string;
  /** Per git command. */
  timeoutMs: number;
}

const REDIRECTING_ENV = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_COMMON_DIR',
];

export const gitMissing = () =>
  new GatewayError(
    'unavailable',
    'git is not installed (or not on PATH): config history, diff, rollback and gc are unavailable',
  );

/** The environment git runs with; variables that would point it at another repository are dropped. */
export function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { ...env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };
  for (const name of REDIRECTING_ENV) delete clean[name];
  return clean;
}

export function createGitRunner({ gitDir, workTree, env, gitBinary, timeoutMs }: GitRunnerOptions): GitRunner {
  const childEnv = gitEnv(env);

  function run(args: readonly string[], input?: string): Promise<GitResult> {
    const fullArgs = [`--git-dir=${gitDir}`, `--work-tree=${workTree}`, '-c', 'commit.gpgsign=false', ...args];
    return new Promise((done, fail) => {
      const child = execFile(
        gitBinary,
        fullArgs,
        { cwd: workTree, env: childEnv, timeout: timeoutMs, maxBuffer: CONFIG_LIMITS.gitMaxOutputBytes },
        (error, stdout, stderr) => {
          if (error === null) return done({ code: 0, stdout, stderr });
          if ('code' in error && error.code === 'ENOENT') return fail(gitMissing());
          if (typeof error.code === 'number') return done({ code: error.code, stdout, stderr });
          fail(new GatewayError('internal', `git ${args[0] ?? ''} failed`, {}, { cause: error }));
        },
      );
      // A command that reads no stdin may close it first; that is not a failure of the command.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input ?? '');
    });
  }

  async function git(args: readonly string[], input?: string): Promise<string> {
    const result = await run(args, input);
    if (result.code !== 0) {
      throw new GatewayError('internal', `git ${args[0] ?? ''} exited with ${result.code}: ${result.stderr.trim()}`);
    }
    return result.stdout;
  }

  return { run, git };
}
