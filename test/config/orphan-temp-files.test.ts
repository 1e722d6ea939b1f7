// A config.yaml or secrets.yaml write interrupted by a kill leaves its temp file (.config.yaml.<pid>.<hex>.tmp) behind;
// the next start removes such orphans from the data dir, and nothing else.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { resolvePaths, validateConfig, type GatewayPaths } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';

/** A pid no process has: above the kernel's pid_max, so the writer it names is certainly gone. */
const GONE_PID = 99_999_999;

let paths: GatewayPaths;
beforeEach(async () => {
  paths = resolvePaths({ dataDir: await mkdtemp(join(tmpdir(), 'agent-gateway-orphans-')) }, {});
});
afterEach(async () => {
  await rm(paths.dataDir, { recursive: true, force: true });
});

describe('orphan temp files of the config', () => {
  it('are removed when the gateway starts; files that only look alike stay', async () => {
    const document = {
      gateway: { port: 0, tokens: [{ id: 'admin', secret: 'admin-secret-0123456789abcdefghijklmnop', scopes: ['*'] }] },
    };
    await writeFile(paths.configPath, stringify(document), { mode: 0o600 });
    const orphans = [`.config.yaml.${GONE_PID}.0123456789ab.tmp`, `.secrets.yaml.${GONE_PID}.ba9876543210.tmp`];
    const bystanders = [
      '.config.yaml.notes.tmp',
      'config.yaml.1234.0123456789ab.tmp',
      '.other.yaml.1234.0123456789ab.tmp',
      '.config.yaml.1234.0123456789ab.tmp.keep',
    ];
    for (const name of [...orphans, ...bystanders])
      await writeFile(join(paths.dataDir, name), 'half a file', { mode: 0o600 });

    const app = await createApp({
      config: validateConfig(document, 'test'),
      paths,
      log: createLogger({ level: 'silent' }),
      version: '0.0.0-test',
      defaultWebDistPath: null,
    });
    try {
      const names = await readdir(paths.dataDir);
      for (const name of orphans) expect(names).not.toContain(name);
      for (const name of bystanders) expect(names).toContain(name);
    } finally {
      await app.close();
    }
  });
});
