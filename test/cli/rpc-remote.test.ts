// `agent-gateway rpc --url --token` and `--version` on a machine with no gateway config or data dir at all.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { sourceCli, type CliResult } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('cli without a local gateway', () => {
  let gateway: Harness;
  let empty: string;

  /** The CLI in `empty` as cwd and HOME, with no AGENT_GATEWAY_* variable: nothing local to read. */
  function runBare(args: string[]): Promise<CliResult> {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: empty };
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        // An absolute path, so the CLI runs from an empty working directory like an installed binary.
        [sourceCli(), ...args],
        { cwd: empty, env, timeout: 20_000 },
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

  beforeAll(async () => {
    gateway = await startGateway();
    empty = await mkdtemp(join(tmpdir(), 'agent-gateway-bare-'));
  });
  afterAll(async () => {
    await gateway.close();
    await rm(empty, { recursive: true, force: true });
  });

  it('calls a remote gateway with --url and --token and creates nothing locally', async () => {
    const result = await runBare(['rpc', '--url', gateway.url, '--token', gateway.tokens.rpc, 'system.ping']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ pong: true });
    expect(await readdir(empty)).toEqual([]);
  });

  it('passes JSON params and prints a JSON-RPC error with exit code 1', async () => {
    const created = await runBare([
      'rpc',
      '--url',
      gateway.url,
      '--token',
      gateway.tokens.admin,
      'tokens.create',
      '{"id":"remote-made","scopes":["rpc"]}',
    ]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ id: 'remote-made', scopes: ['rpc'] });
    const refused = await runBare(['rpc', '--url', gateway.url, '--token', gateway.tokens.rpc, 'no.such.method']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error -32601');
  });

  it('asks for a token instead of a config file when only --url is given', async () => {
    const result = await runBare(['rpc', '--url', gateway.url, 'system.ping']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no token: pass --token');
    expect(await readdir(empty)).toEqual([]);
  });

  it('prints the package version for --version and -v', async () => {
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const result = await runBare([flag]);
      expect(result, flag).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });
});
