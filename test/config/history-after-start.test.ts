// A gateway's start does not wait for git: it answers /health while its config history is still being readied, and
// config.history, asked meanwhile, answers once the file's first commit is made.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, TOKENS, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

describe('config history at start', () => {
  let binDir: string;
  let release: string;
  let gateway: Harness | undefined;
  beforeEach(async () => {
    binDir = await mkdtemp(join(tmpdir(), 'agent-gateway-held-git-'));
    release = join(binDir, 'release');
    // A git that runs only once the test lets it: until then every git process of the gateway waits.
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const held = `#!/bin/sh\nwhile [ ! -e '${release}' ]; do sleep 0.02; done\nexec '${realGit}' "$@"\n`;
    await writeFile(join(binDir, 'git'), held);
    await chmod(join(binDir, 'git'), 0o755);
  });
  afterEach(async () => {
    await writeFile(release, '');
    await gateway?.close();
    gateway = undefined;
    await rm(binDir, { recursive: true, force: true });
  });

  it('listens and answers /health before git has run, then lists the initial commit', async () => {
    // The held wrapper first on PATH, where the gateway looks for git.
    const path = `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`;
    gateway = await startGateway({ app: { env: { PATH: path } } });
    const health = await fetch(`${gateway.url}/health`);
    expect(health.status).toBe(200);
    expect(existsSync(join(gateway.dataDir, '.git', 'HEAD'))).toBe(false);

    const listed = callRpc(gateway.url, TOKENS.admin, 'config.history', {});
    await writeFile(release, '');
    expect(await listed).toMatchObject({ result: { entries: [{ message: 'initial config' }] } });
  });
});
