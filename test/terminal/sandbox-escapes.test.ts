// Escapes from the bubblewrap jail that must fail: writes outside the workspace, the data dir, the network, the gateway's env.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/errors.js';
import { childPids, driveTable, run, type DriveTable } from './terminal-support.js';

const session = 'agent:ops:main';
const openOps = (table: DriveTable) => table.drives.open({ agentId: 'ops', sessionKey: session, ownerId: 'owner-1' });

describe('terminal drives: the jail', () => {
  let table: DriveTable | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await table?.dispose();
    table = undefined;
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    server = undefined;
  });

  it('writes only the workspace: /usr, the data dir and the workspace root stay untouched', async () => {
    table = await driveTable();
    const drive = await openOps(table);
    const tmpName = `jail-${randomUUID()}`;
    const attempts = [
      'touch /usr/x',
      `echo x > ${table.dataDir}/x`,
      'echo x > $HOME/../x',
      'echo x > /x',
      `echo x > ${join(table.workspaceRoot, 'x')}`,
    ];
    for (const attempt of attempts) {
      expect((await run(table.drives, drive.driveId, session, attempt)).status, attempt).not.toBe(0);
    }
    expect((await run(table.drives, drive.driveId, session, `echo x > /tmp/${tmpName}`)).status).toBe(0);
    for (const path of ['/usr/x', join(table.dataDir, 'x'), join(table.workspaceRoot, 'x'), `/tmp/${tmpName}`]) {
      expect(existsSync(path), path).toBe(false);
    }
    expect((await run(table.drives, drive.driveId, session, 'echo kept > mine.txt')).status).toBe(0);
    expect(existsSync(join(table.workspaceRoot, 'ops', 'mine.txt'))).toBe(true);
  });

  it("never shows the data dir's config.yaml or its secret", async () => {
    table = await driveTable();
    const secret = `sk-secret-${randomUUID()}`;
    await writeFile(join(table.dataDir, 'config.yaml'), `providers:\n  openai:\n    apiKey: ${secret}\n`);
    const drive = await openOps(table);
    const reads = [
      `cat ${table.dataDir}/config.yaml`,
      'cat $HOME/../config.yaml',
      `grep -rs sk-secret ${table.dataDir} /workspace /tmp /etc /proc/1/cwd | head -5`,
      `ls -la ${table.dataDir}`,
    ];
    for (const attempt of reads) {
      const { output } = await run(table.drives, drive.driveId, session, attempt);
      expect(output).not.toContain(secret);
    }
    expect(table.drives.peek(drive.driveId, 1_000_000).text).not.toContain(secret);
  });

  it('has no network unless terminal.network: a local server sees no request', async () => {
    const seen: string[] = [];
    server = createServer((request, response) => {
      seen.push(request.url ?? '');
      response.end('reached');
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/from-jail`;

    table = await driveTable();
    const jailed = await openOps(table);
    const curl = await run(table.drives, jailed.driveId, session, `curl -s -m 5 ${url}`);
    expect(curl.status).not.toBe(0);
    const tcp = await run(table.drives, jailed.driveId, session, `echo > /dev/tcp/127.0.0.1/${port}`);
    expect(tcp.status).not.toBe(0);
    expect(seen).toEqual([]);

    // The same request with the network shared reaches the server: the refusal above is the jail's doing.
    table.config.network = true;
    const networked = await openOps(table);
    const reached = await run(table.drives, networked.driveId, session, `curl -s -m 5 ${url}`);
    expect(reached.output).toContain('reached');
    expect(seen).toEqual(['/from-jail']);
  });

  it("shows the shell none of the gateway's environment, and passEnv exactly the names given", async () => {
    const secretName = `T38_GATEWAY_SECRET_${randomUUID().slice(0, 8)}`;
    const passName = `T38_PASS_ME_${randomUUID().slice(0, 8)}`;
    process.env[secretName] = 'gateway-secret-value';
    process.env[passName] = 'passed-value';
    try {
      table = await driveTable({ passEnv: [passName], env: { BUILD_MODE: 'release' } });
      const drive = await openOps(table);
      const env = await run(table.drives, drive.driveId, session, 'env; cat /proc/*/environ | tr "\\0" "\\n"');
      expect(env.output).not.toContain('gateway-secret-value');
      expect(env.output).toContain(`${passName}=passed-value`);
      expect(env.output).toContain('BUILD_MODE=release');
      expect(env.output).toContain('HOME=/workspace');
      expect(env.output).toContain('PATH=/usr/local/bin:/usr/bin:/bin');
      const names = env.output
        .split('\n')
        .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
        .map((line) => line.slice(0, line.indexOf('=')));
      const allowed = ['PATH', 'HOME', 'TERM', 'LANG', 'BUILD_MODE', passName, 'PWD', 'OLDPWD', 'SHLVL', '_'];
      expect(names.filter((name) => !allowed.includes(name))).toEqual([]);
    } finally {
      delete process.env[secretName];
      delete process.env[passName];
    }
  });

  it('refuses to open when bwrap is missing, and starts no process', async () => {
    table = await driveTable({}, { bwrapPath: '/nonexistent/bwrap' });
    const before = await childPids();
    const refusal = await openOps(table).catch((error: unknown) => error);
    expect(isGatewayError(refusal) && refusal.kind).toBe('unavailable');
    expect(String(refusal)).toMatch(/bubblewrap .*missing.*never runs unsandboxed/);
    expect(await childPids()).toEqual(before);
    expect(table.drives.list()).toEqual([]);
  });

  it('refuses every drive while terminal.enabled is false', async () => {
    table = await driveTable({ enabled: false });
    const refusal = await openOps(table).catch((error: unknown) => error);
    expect(isGatewayError(refusal) && refusal.kind).toBe('unavailable');
    expect(String(refusal)).toContain('terminal.enabled');
  });

  it('runs the shell unjailed under sandbox: none, still with the clean environment, in the workspace', async () => {
    process.env.T38_NONE_SECRET = 'none-secret-value';
    try {
      table = await driveTable({ sandbox: 'none' }, { bwrapPath: '/nonexistent/bwrap' });
      const drive = await openOps(table);
      const workspace = join(table.workspaceRoot, 'ops');
      expect(drive.cwd).toBe(workspace);
      const { output } = await run(table.drives, drive.driveId, session, 'pwd; env');
      expect(output.startsWith(`${workspace}\n`)).toBe(true);
      expect(output).toContain(`HOME=${workspace}`);
      expect(output).not.toContain('none-secret-value');
    } finally {
      delete process.env.T38_NONE_SECRET;
    }
  });
});
