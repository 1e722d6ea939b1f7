// `agent-gateway start` and `agent-gateway rpc`: first run, serving, a CLI-issued token, graceful shutdown on SIGTERM.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type RunningCli } from '../support/cli.js';
import { callRpc } from '../support/http-client.js';
import { connectOpen } from '../support/ws-client.js';

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
    expect(result.stderr).toContain('-32601');
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
