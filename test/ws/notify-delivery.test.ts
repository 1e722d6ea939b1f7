// Who receives session.completed: only sockets whose token may call agent.*, never mcp-client or api ones; a webhook's
// only admin sockets (no token owns its session).
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { connectOpen, type TestSocket } from '../support/ws-client.js';

const SECRET = 'webhook-secret-0123456789';

describe('session.completed delivery', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  const sockets: TestSocket[] = [];
  const open = async (token: string) => {
    const socket = await connectOpen(gateway.wsUrl, { token });
    sockets.push(socket);
    return socket;
  };

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      gateway: { webhook: { secret: SECRET, agentId: 'default' }, wsHeartbeatMs: 0 },
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
    });
  });
  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close()));
    await gateway.close();
    await llm.close();
  });

  /** Proves a socket got nothing before now: the answer to a call made now is its only frame. */
  async function expectNothingReceived(socket: TestSocket): Promise<void> {
    const answer = await socket.call('system.ping');
    expect(socket.received).toEqual([answer]);
  }

  it('sends a webhook result to admin sockets, and none to rpc, ws, mcp-client or api sockets', async () => {
    const adminSocket = await open(gateway.tokens.admin);
    const rpc = await open(gateway.tokens.rpc);
    const ws = await open(gateway.tokens.ws);
    const mcp = await open(gateway.tokens.mcpClient);
    const api = await open(gateway.tokens.api);
    llm.script({ text: 'Handled the deploy.' });
    const body = JSON.stringify({ event: 'deploy.finished', source: 'ci', data: { build: 42 } });
    const signature = createHmac('sha256', SECRET).update(body).digest('hex');
    const accepted = await fetch(`${gateway.url}/hooks/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
      body,
    });
    expect(accepted.status).toBe(202);
    const { sessionKey } = (await accepted.json()) as { sessionKey: string };

    const done = await adminSocket.waitFor((frame) => frame.method === 'session.completed');
    expect(done.params).toMatchObject({
      sessionKey,
      result: { response: 'Handled the deploy.', finishReason: 'stop' },
    });
    for (const socket of [rpc, ws, mcp, api]) await expectNothingReceived(socket);
  });

  it('counts only the sockets it delivered to', async () => {
    const before = gateway.app.ws.notify(null, 'session.completed', { sessionKey: 'k', result: {} });
    const mcp = await open(gateway.tokens.mcpClient);
    const api = await open(gateway.tokens.api);
    expect(gateway.app.ws.notify(null, 'session.completed', { sessionKey: 'k', result: {} })).toBe(before);
    await expectNothingReceived(mcp);
    await expectNothingReceived(api);
  });
});
