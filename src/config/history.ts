// Git-backed history of config.yaml: one commit per change, log, diffs, the file at a commit, and gc.
import { execFile } from 'node:child_process';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { GatewayError } from '../errors.js';
import { createGitRunner, gitEnv, gitMissing } from './git-runner.js';
import { rewriteFileInHistory, type HistoryRewriteResult } from './history-rewrite.js';
import { CONFIG_LIMITS } from './limits.js';

export interface ConfigHistoryEntry {
  sha: string;
  /** ISO 8601, UTC. */
  date: string;
  message: string;
  /** Under storage: postgres, the revision's number and the replica that wrote it. */
  revision?: number;
  author?: string;
}

export interface ConfigGcResult {
  ok: true;
  commits: number;
  packs: number;
  looseObjects: number;
  sizeKb: number;
}

export interface ConfigHistory {
  /** Whether the git CLI could be run; false means every other method throws `unavailable`. */
  isAvailable(): Promise<boolean>;
  /**
   * Creates the repository on first use and commits the config file when it is untracked
   * ("initial config") or differs from the last commit ("external edit"). Returns HEAD, or null without git.
   */
  init(): Promise<string | null>;
  /** Commits the config file as it is on disk; returns HEAD (unchanged when nothing differs). */
  commit(message: string): Promise<string>;
  /** The full sha of the commit `ref` names; throws `not_found` when there is none. */
  resolve(ref: string): Promise<string>;
  head(): Promise<string | null>;
  /** Newest first, at most `limit`. */
  history(limit: number): Promise<ConfigHistoryEntry[]>;
  /**
   * With `sha`: that commit against its parent. Without: the file on disk against HEAD, or the last
   * commit's own diff when they are equal. Unified diff text.
   */
  diff(sha?: string): Promise<string>;
  /** The config file's text at `sha`. */
  show(sha: string): Promise<string>;
  gc(): Promise<ConfigGcResult>;
  /**
   * Whether no commit is known to hold a literal secret: set by markSecretFree, and true from the start for a
   * repository created here (its first commit comes from the ConfigStore, which moves secrets out first).
   */
  isSecretFree(): Promise<boolean>;
  markSecretFree(): Promise<void>;
  /** Rewrites the config file in every commit and prunes the old objects (history-rewrite.ts). */
  rewriteFile(transform: (text: string) => string, beforeRefsMove: () => Promise<void>): Promise<HistoryRewriteResult>;
}

export interface GitHistoryDeps {
  dataDir: string;
  configPath: string;
  /** The environment git runs with; variables that redirect git (GIT_DIR, GIT_INDEX_FILE, …) are dropped. */
  env: NodeJS.ProcessEnv;
  gitBinary?: string;
  /** Per git command. */
  timeoutMs?: number;
}

const COMMIT_REF = /^[0-9a-fA-F]{4,64}$/;
const IDENTITY = { name: 'agent-gateway', email: 'agent-gateway@localhost' };
/** A repository-local git config key; `true` once every commit is known to hold no literal secret. */
const SECRET_FREE_KEY = 'agent-gateway.secretFree';

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

export function createGitHistory({
  dataDir,
  configPath,
  env,
  gitBinary = 'git',
  timeoutMs = CONFIG_LIMITS.gitTimeoutMs,
}: GitHistoryDeps): ConfigHistory {
  const workTree = dirname(resolve(configPath));
  const file = basename(configPath);
  // The default layout keeps the repository in the data dir itself. A config file elsewhere (--config)
  // gets its repository inside the data dir too, so we never `git init` in a directory we do not own.
  const isInDataDir = relative(resolve(dataDir), workTree) === '';
  const gitDir = isInDataDir ? join(workTree, '.git') : join(resolve(dataDir), 'config-history.git');
  const childEnv = gitEnv(env);
  const { run, git } = createGitRunner({ gitDir, workTree, env, gitBinary, timeoutMs });
  let availability: Promise<boolean> | undefined;
  let isRepositoryReady = false;
  let queue: Promise<unknown> = Promise.resolve();

  /** Git commands run one at a time, so an index.lock never collides with our own next command. */
  function serial<T>(task: () => Promise<T>): Promise<T> {
    const next = queue.then(async () => {
      if (!(await isAvailable())) throw gitMissing();
      return task();
    });
    queue = next.catch(() => undefined);
    return next;
  }

  function isAvailable(): Promise<boolean> {
    availability ??= new Promise((done) => {
      execFile(gitBinary, ['--version'], { env: childEnv, timeout: timeoutMs }, (error) => done(error === null));
    });
    return availability;
  }

  async function headSha(): Promise<string | null> {
    const result = await run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
    return result.code === 0 ? result.stdout.trim() : null;
  }

  async function ensureRepository(): Promise<void> {
    if (isRepositoryReady) return;
    if (!(await exists(join(gitDir, 'HEAD')))) {
      await mkdir(dirname(gitDir), { recursive: true, mode: 0o700 });
      await git(['init', '--quiet']);
      await git(['config', SECRET_FREE_KEY, 'true']);
    }
    // Ignore everything but the config file, so gateway.db, media and temp files never enter history.
    const rules = `*\n!${file}\n!.gitignore\n`;
    if (isInDataDir) {
      if (!(await exists(join(workTree, '.gitignore'))))
        await writeFile(join(workTree, '.gitignore'), rules, { mode: 0o600 });
    } else {
      await mkdir(join(gitDir, 'info'), { recursive: true });
      await writeFile(join(gitDir, 'info', 'exclude'), `*\n!${file}\n`);
    }
    // A local identity, so commits work on machines where git has none configured.
    await git(['config', 'user.name', IDENTITY.name]);
    await git(['config', 'user.email', IDENTITY.email]);
    isRepositoryReady = true;
  }

  async function commitStaged(message: string): Promise<string> {
    const paths = isInDataDir ? [file, '.gitignore'] : [file];
    await git(['add', '--', ...paths]);
    const staged = await run(['diff', '--cached', '--quiet']);
    const head = await headSha();
    if (staged.code === 0 && head !== null) return head;
    await git(['commit', '--quiet', '--no-verify', '-m', message]);
    const sha = await headSha();
    if (sha === null) throw new GatewayError('internal', 'git commit left no HEAD');
    return sha;
  }

  async function resolveRef(ref: string): Promise<string> {
    if (!COMMIT_REF.test(ref))
      throw new GatewayError('invalid_params', `'sha' must be a commit hash (4 to 64 hex digits)`, { param: 'sha' });
    const result = await run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
    if (result.code !== 0)
      throw new GatewayError('not_found', `Config history has no commit '${ref}'`, { param: 'sha' });
    return result.stdout.trim();
  }

  return {
    isAvailable,
    async init() {
      if (!(await isAvailable())) return null;
      return serial(async () => {
        await ensureRepository();
        const head = await headSha();
        return commitStaged(head === null ? 'initial config' : 'external edit');
      });
    },
    commit: (message) =>
      serial(async () => {
        await ensureRepository();
        return commitStaged(message);
      }),
    resolve: (ref) => serial(() => resolveRef(ref)),
    head: () => serial(headSha),
    history: (limit) =>
      serial(async () => {
        if ((await headSha()) === null) return [];
        const out = await git(['log', `--max-count=${Math.max(1, Math.floor(limit))}`, '--format=%H%x1f%cI%x1f%s%x1e']);
        return out
          .split('\x1e')
          .map((record) => record.trim())
          .filter((record) => record !== '')
          .map((record) => {
            const [sha = '', date = '', message = ''] = record.split('\x1f');
            return { sha, date: new Date(date).toISOString(), message };
          });
      }),
    diff: (sha) =>
      serial(async () => {
        const show = (ref: string) => git(['show', '--no-color', '--format=', '--patch', ref, '--', file]);
        if (sha !== undefined) return show(await resolveRef(sha));
        if ((await headSha()) === null) return '';
        const working = await git(['diff', '--no-color', 'HEAD', '--', file]);
        return working !== '' ? working : show('HEAD');
      }),
    show: (sha) =>
      serial(async () => {
        const full = await resolveRef(sha);
        const result = await run(['show', `${full}:${file}`]);
        if (result.code !== 0) throw new GatewayError('not_found', `Commit '${sha}' has no ${file}`, { param: 'sha' });
        return result.stdout;
      }),
    isSecretFree: () =>
      serial(async () => {
        await ensureRepository();
        const result = await run(['config', '--get', SECRET_FREE_KEY]);
        return result.code === 0 && result.stdout.trim() === 'true';
      }),
    markSecretFree: () =>
      serial(async () => {
        await ensureRepository();
        await git(['config', SECRET_FREE_KEY, 'true']);
      }),
    rewriteFile: (transform, beforeRefsMove) =>
      serial(async () => {
        await ensureRepository();
        return rewriteFileInHistory({ run, git }, { file, transform, beforeRefsMove });
      }),
    gc: () =>
      serial(async () => {
        await git(['gc', '--quiet', '--prune=now']);
        const counts = new Map(
          (await git(['count-objects', '-v']))
            .split('\n')
            .map((line) => line.split(': '))
            .map(([key = '', value = '0']) => [key, Number(value)] as const),
        );
        const head = await headSha();
        const commits = head === null ? 0 : Number((await git(['rev-list', '--count', 'HEAD'])).trim());
        return {
          ok: true,
          commits,
          packs: counts.get('packs') ?? 0,
          looseObjects: counts.get('count') ?? 0,
          sizeKb: (counts.get('size') ?? 0) + (counts.get('size-pack') ?? 0),
        };
      }),
  };
}
