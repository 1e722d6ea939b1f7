// The data dir is private after a start: the dir 0700 and every file the gateway keeps in it 0600, also on installs
// an older version left world-readable.
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { resolvePaths } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { openDatabase } from '../../src/store/sqlite/index.js';
import { harnessConfig, harnessDocument, TOKENS } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('data dir permissions', () => {
  let parent: string;
  let previousUmask: number;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'agent-gateway-perms-'));
    // The common default: without explicit modes, files would be created 0644 and directories 0755.
    previousUmask = process.umask(0o022);
  });
  afterEach(async () => {
    process.umask(previousUmask);
    await rm(parent, { recursive: true, force: true });
  });

  async function startIn(dataDir: string): Promise<() => Promise<void>> {
    const paths = resolvePaths({ dataDir }, {});
    const app = await createApp({
      config: harnessConfig(),
      paths,
      log: createLogger({ level: 'silent' }),
      version: 'test',
      defaultWebDistPath: null,
    });
    const { url } = await app.listen();
    // Migrations have run, so SQLite has created its WAL and shared-memory files.
    expect(await callRpc(url, TOKENS.admin, 'system.ping')).toHaveProperty('result.pong', true);
    return () => app.close();
  }

  it('creates a fresh data dir 0700 and gateway.db, its -wal and -shm 0600', async () => {
    const dataDir = join(parent, 'fresh');
    const close = await startIn(dataDir);
    try {
      expect(await modeOf(dataDir)).toBe(0o700);
      for (const file of ['gateway.db', 'gateway.db-wal', 'gateway.db-shm', 'config.yaml']) {
        expect({ file, mode: await modeOf(join(dataDir, file)) }).toEqual({ file, mode: 0o600 });
      }
    } finally {
      await close();
    }
  });

  it('tightens an existing world-readable install on start', async () => {
    const dataDir = join(parent, 'old');
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    await writeFile(join(dataDir, 'config.yaml'), stringifyYaml(harnessDocument()), { mode: 0o644 });
    const old = openDatabase({ path: join(dataDir, 'gateway.db') });
    old.close();
    for (const file of ['config.yaml', 'gateway.db']) await chmod(join(dataDir, file), 0o644);
    await mkdir(join(dataDir, 'media'), { mode: 0o755 });
    await chmod(join(dataDir, 'media'), 0o755);

    const close = await startIn(dataDir);
    try {
      expect(await modeOf(dataDir)).toBe(0o700);
      expect(await modeOf(join(dataDir, 'media'))).toBe(0o700);
      for (const file of ['gateway.db', 'gateway.db-wal', 'gateway.db-shm', 'config.yaml']) {
        expect({ file, mode: await modeOf(join(dataDir, file)) }).toEqual({ file, mode: 0o600 });
      }
    } finally {
      await close();
    }
  });
});
