// The bundled CLI (`npm start`, the installed binary): it starts, serves /health, JSON-RPC over HTTP and WebSocket,
// keeps config history, and stops cleanly on SIGTERM. Built by `npm run build` (npm install runs it).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_CLI, BUNDLED_CLI_PATH, spawnCli, type RunningCli } from '../support/cli.js';
import { callRpc } from '../support/http-client.js';
import { connectOpen } from '../support/ws-client.js';

describe.skipIf(!existsSync(BUNDLED_CLI_PATH))('bundled cli', () => {
  let home: string;
  let server: RunningCli;
  let url: string;
  let adminSecret: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'agent-gateway-bundle-'));
    server = spawnCli(['start', '--port', '0'], home, BUNDLED_CLI);
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

  it('serves health, JSON-RPC over HTTP and WebSocket, and the config history it committed at first start', async () => {
    expect(await (await fetch(`${url}/health`)).json()).toMatchObject({ status: 'ok' });
    expect(await callRpc(url, adminSecret, 'config.history', {})).toMatchObject({
      result: { entries: [{ message: 'initial config' }] },
    });
    const ws = await connectOpen(`${url.replace(/^http/, 'ws')}/ws`, { token: adminSecret });
    try {
      expect(await ws.call('system.ping', {})).toMatchObject({ result: { pong: true } });
    } finally {
      await ws.close();
    }
  });

  it('stops with exit code 0 on SIGTERM', async () => {
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
