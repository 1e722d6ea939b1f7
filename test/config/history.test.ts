// Config history: a git repository in the data dir with one commit per change, its log, diffs and gc.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitHistory, type ConfigHistory } from '../../src/config/index.js';
import { GatewayError } from '../../src/errors.js';

let dataDir: string;
let configPath: string;

function gitLog(gitDir: string): string[] {
  return execFileSync('git', [`--git-dir=${gitDir}`, 'log', '--format=%s'], { encoding: 'utf8' })
    .trim()
    .split('\n');
}

async function history(overrides: Partial<Parameters<typeof createGitHistory>[0]> = {}): Promise<ConfigHistory> {
  return createGitHistory({ dataDir, configPath, env: {}, ...overrides });
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-history-'));
  configPath = join(dataDir, 'config.yaml');
  await writeFile(configPath, 'gateway:\n  port: 4766\n');
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('config history', () => {
  it('creates the repository on first use with a .gitignore that keeps only config.yaml', async () => {
    const repo = await history();
    await writeFile(join(dataDir, 'gateway.db'), 'not config');
    const sha = await repo.init();
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await readFile(join(dataDir, '.gitignore'), 'utf8')).toBe('*\n!config.yaml\n!.gitignore\n');
    expect(gitLog(join(dataDir, '.git'))).toEqual(['initial config']);
    const tracked = execFileSync('git', ['-C', dataDir, 'ls-files'], { encoding: 'utf8' }).trim().split('\n');
    expect(tracked.sort()).toEqual(['.gitignore', 'config.yaml']);
    const author = execFileSync('git', ['-C', dataDir, 'log', '-1', '--format=%an <%ae>'], { encoding: 'utf8' }).trim();
    expect(author).toBe('agent-gateway <agent-gateway@localhost>');
  });

  it('commits an edit made outside the gateway as "external edit" at the next start, and nothing when unchanged', async () => {
    const first = await (await history()).init();
    expect(await (await history()).init()).toBe(first);
    await writeFile(configPath, 'gateway:\n  port: 4800\n');
    const second = await (await history()).init();
    expect(second).not.toBe(first);
    expect(gitLog(join(dataDir, '.git'))).toEqual(['external edit', 'initial config']);
  });

  it('lists commits newest first with ISO dates, and honours the limit', async () => {
    const repo = await history();
    await repo.init();
    await writeFile(configPath, 'gateway:\n  port: 4801\n');
    const sha = await repo.commit('config.patch');
    const entries = await repo.history(10);
    expect(entries.map((entry) => entry.message)).toEqual(['config.patch', 'initial config']);
    expect(entries[0]?.sha).toBe(sha);
    expect(new Date(entries[0]?.date ?? '').toISOString()).toBe(entries[0]?.date);
    expect(await repo.history(1)).toHaveLength(1);
  });

  it('returns HEAD without a new commit when the file did not change', async () => {
    const repo = await history();
    const head = await repo.init();
    expect(await repo.commit('nothing')).toBe(head);
    expect(await repo.history(10)).toHaveLength(1);
  });

  it('diffs a commit against its parent, and without sha shows the working file or the last commit', async () => {
    const repo = await history();
    const first = await repo.init();
    await writeFile(configPath, 'gateway:\n  port: 4802\n');
    const second = await repo.commit('port');
    const diff = await repo.diff(second);
    expect(diff).toContain('-  port: 4766');
    expect(diff).toContain('+  port: 4802');
    expect(await repo.diff()).toBe(diff);
    await writeFile(configPath, 'gateway:\n  port: 4803\n');
    expect(await repo.diff()).toContain('+  port: 4803');
    expect(await repo.diff(first ?? '')).toContain('+gateway:');
  });

  it('shows the file at a commit and resolves short hashes', async () => {
    const repo = await history();
    const first = (await repo.init()) ?? '';
    await writeFile(configPath, 'gateway:\n  port: 4804\n');
    await repo.commit('port');
    expect(await repo.show(first.slice(0, 7))).toBe('gateway:\n  port: 4766\n');
    expect(await repo.resolve(first.slice(0, 8))).toBe(first);
  });

  it('refuses malformed and unknown commits', async () => {
    const repo = await history();
    await repo.init();
    await expect(repo.diff('--output=/tmp/x')).rejects.toMatchObject({ kind: 'invalid_params' });
    await expect(repo.show('deadbeefdeadbeef')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('packs the repository on gc', async () => {
    const repo = await history();
    await repo.init();
    await writeFile(configPath, 'gateway:\n  port: 4805\n');
    await repo.commit('port');
    const result = await repo.gc();
    expect(result).toMatchObject({ ok: true, commits: 2, looseObjects: 0 });
    expect(result.packs).toBeGreaterThanOrEqual(1);
  });

  it('keeps the repository in the data dir when the config file lives elsewhere', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'agent-gateway-etc-'));
    try {
      const outsidePath = join(elsewhere, 'gateway.yaml');
      await writeFile(outsidePath, 'gateway: {}\n');
      await writeFile(join(elsewhere, 'other.txt'), 'not ours');
      const repo = await history({ configPath: outsidePath });
      await repo.init();
      await expect(stat(join(elsewhere, '.git'))).rejects.toThrow();
      await expect(stat(join(elsewhere, '.gitignore'))).rejects.toThrow();
      expect(gitLog(join(dataDir, 'config-history.git'))).toEqual(['initial config']);
      expect(await repo.show((await repo.head()) ?? '')).toBe('gateway: {}\n');
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('reports unavailable when git is not installed', async () => {
    const repo = await history({ gitBinary: join(dataDir, 'no-such-git') });
    expect(await repo.isAvailable()).toBe(false);
    expect(await repo.init()).toBeNull();
    const failure = await repo.history(5).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayError);
    expect(failure).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('git is not installed') });
  });
});
