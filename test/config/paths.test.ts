// Where the gateway keeps its files: --data-dir, then $AGENT_GATEWAY_HOME, then ~/.agent-gateway; --config overrides the file.
import { chmod, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageInfo, resolvePaths, securePrivateDataDir } from '../../src/config/index.js';

describe('config paths', () => {
  it('defaults to ~/.agent-gateway', () => {
    const dataDir = join(homedir(), '.agent-gateway');
    expect(resolvePaths({}, {})).toEqual({
      dataDir,
      configPath: join(dataDir, 'config.yaml'),
      secretsPath: join(dataDir, 'secrets.yaml'),
      databasePath: join(dataDir, 'gateway.db'),
    });
  });

  it('uses $AGENT_GATEWAY_HOME, and --data-dir over it', () => {
    expect(resolvePaths({}, { AGENT_GATEWAY_HOME: '/srv/gw' }).configPath).toBe('/srv/gw/config.yaml');
    expect(resolvePaths({ dataDir: '/opt/gw' }, { AGENT_GATEWAY_HOME: '/srv/gw' })).toEqual({
      dataDir: '/opt/gw',
      configPath: '/opt/gw/config.yaml',
      secretsPath: '/opt/gw/secrets.yaml',
      databasePath: '/opt/gw/gateway.db',
    });
  });

  it('takes --config for the file while the database stays in the data dir, resolving relative paths', () => {
    const paths = resolvePaths({ dataDir: 'rel/dir', configPath: 'my.yaml' }, {});
    expect(paths.configPath).toBe(resolve('my.yaml'));
    expect(paths.databasePath).toBe(resolve('rel/dir/gateway.db'));
    expect(paths.secretsPath).toBe(resolve('rel/dir/secrets.yaml'));
  });

  it("finds this package's root and version", () => {
    const info = packageInfo();
    expect(info.root).toBe(resolve(import.meta.dirname, '../..'));
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('takes group and other permissions off the data dir and its direct entries, and leaves stricter modes and symlinks', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'agent-gateway-paths-'));
    try {
      const dataDir = join(parent, 'data');
      await mkdir(join(dataDir, 'media'), { recursive: true });
      await chmod(dataDir, 0o755);
      await chmod(join(dataDir, 'media'), 0o775);
      await writeFile(join(dataDir, 'gateway.db'), '', { mode: 0o644 });
      await writeFile(join(dataDir, 'read-only.yaml'), '', { mode: 0o400 });
      await writeFile(join(parent, 'outside'), '', { mode: 0o644 });
      await chmod(join(parent, 'outside'), 0o644);
      await symlink(join(parent, 'outside'), join(dataDir, 'link'));
      await chmod(join(dataDir, 'gateway.db'), 0o644);

      const tightened = await securePrivateDataDir(dataDir);
      const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
      expect(await modeOf(dataDir)).toBe(0o700);
      expect(await modeOf(join(dataDir, 'media'))).toBe(0o700);
      expect(await modeOf(join(dataDir, 'gateway.db'))).toBe(0o600);
      expect(await modeOf(join(dataDir, 'read-only.yaml'))).toBe(0o400);
      expect(await modeOf(join(parent, 'outside'))).toBe(0o644);
      expect(tightened.sort()).toEqual([dataDir, join(dataDir, 'gateway.db'), join(dataDir, 'media')].sort());
      expect(await securePrivateDataDir(dataDir)).toEqual([]);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('creates a missing data dir 0700', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'agent-gateway-paths-'));
    const previousUmask = process.umask(0o022);
    try {
      await securePrivateDataDir(join(parent, 'new', 'data'));
      expect((await stat(join(parent, 'new', 'data'))).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previousUmask);
      await rm(parent, { recursive: true, force: true });
    }
  });
});
