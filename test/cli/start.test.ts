// `agent-gateway start` and `agent-gateway rpc`: first run, serving, a CLI-issued token, restart, graceful shutdown on SIGTERM.
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type RunningCli } from '../support/cli.js';
import { callRpc, postRpc } from '../support/http-client.js';
import { connectOpen } from '../support/ws-client.js';
import { freePort } from '../support/free-port.js';

describe('cli start', () => {
  let home: string;
  let server: RunningCli;
  let url: string;
  let adminSecret: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'agent-gateway-start-'));
    server = spawnCli(['start', '--port', '0'], home);
    [, url = ''] = await server.waitForOutput(/Agent Gateway listening on (https?:\/\/[^"\s]+)/);
    adminSecret = /^ {2}([A-Za-z0-9]{48})$/m.exec(server.stdout())?.[1] ?? '';
  });
  afterAll(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await rm(home, { recursive: true, force: true });
  });

  it('creates the config on first start and prints the admin token with a curl line for the real url', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(adminSecret).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(server.stdout()).toContain(`curl -H 'Authorization: Bearer ${adminSecret}'`);
    expect(server.stdout()).toContain(`${url}/rpc`);
  });

  it('serves /health and JSON-RPC with the printed token', async () => {
    const health = await fetch(`${url}/health`);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    expect(await callRpc(url, adminSecret, 'system.ping')).toHaveProperty('result.pong', true);
  });

  it('`rpc system.ping --url` calls the running gateway with the config admin token', async () => {
    const result = await runCli(['rpc', 'system.ping', '--url', url], home);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ pong: true, ts: expect.any(Number) });
  });

  it('`rpc` exits 1 and prints the JSON-RPC error for an unknown method', async () => {
    const result = await runCli(['rpc', 'no.such', '--url', url], home);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error -32601: Method not found: no.such');
  });

  it('accepts a token issued by `token create` while it runs, at once', async () => {
    const created = await runCli(['token', 'create', '--id', 'late', '--scopes', 'rpc'], home);
    const secret = created.stdout.trim().split('\n').at(-1) ?? '';
    expect(await callRpc(url, secret, 'system.ping')).toHaveProperty('result.pong', true);
  });

  it('on SIGTERM closes WebSockets with 1001 and exits 0', async () => {
    const socket = await connectOpen(`${url.replace(/^http/, 'ws')}/ws`, { token: adminSecret });
    server.child.kill('SIGTERM');
    expect(await socket.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toContain('"msg":"stopped"');
  });
});

describe('cli start restart', () => {
  let home: string;
  let server: RunningCli;
  let url: string;
  const ADMIN = 'restart-admin-secret-0123456789abcdefghij';
  const ADDED = 'restart-added-secret-0123456789abcdefghij';
  const configPath = () => join(home, 'config.yaml');
  const tokenYaml = (id: string, secret: string) => `    - id: ${id}\n      secret: ${secret}\n      scopes: ["*"]\n`;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'agent-gateway-restart-'));
    const port = await freePort();
    await writeFile(configPath(), `gateway:\n  port: ${port}\n  tokens:\n${tokenYaml('admin', ADMIN)}`);
    server = spawnCli(['start'], home);
    [, url = ''] = await server.waitForOutput(/Agent Gateway listening on (https?:\/\/[^"\s]+)/);
  });
  afterAll(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await rm(home, { recursive: true, force: true });
  });

  it('gateway.restart reloads config.yaml: a token added to the file works afterwards', async () => {
    expect((await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'system.ping' }, ADDED)).status).toBe(401);
    await appendFile(configPath(), tokenYaml('added', ADDED));
    expect(await callRpc(url, ADMIN, 'gateway.restart')).toHaveProperty('result.restarting', true);
    await server.waitForOutput(/"msg":"restarted"/);
    expect(await callRpc(url, ADDED, 'system.ping')).toHaveProperty('result.pong', true);
  });

  it('keeps running when the new config is invalid', async () => {
    const valid = await readFile(configPath(), 'utf8');
    await writeFile(configPath(), `${valid}  bogusKey: 1\n`);
    await callRpc(url, ADMIN, 'gateway.restart');
    await server.waitForOutput(/restart refused: the config file is invalid/);
    expect(await callRpc(url, ADMIN, 'system.ping')).toHaveProperty('result.pong', true);
    await writeFile(configPath(), valid);
  });

  it('exits 1 when the restarted gateway cannot be built, rather than living on without a listener', async () => {
    const missing = join(home, 'missing.pem');
    await appendFile(configPath(), `  tls:\n    certPath: ${missing}\n    keyPath: ${missing}\n`);
    await callRpc(url, ADMIN, 'gateway.restart');
    expect(await server.exited).toBe(1);
    expect(server.stdout()).toContain('restart failed; exiting');
  });
});
