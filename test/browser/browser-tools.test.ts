// The browser_* agent tools in real turns: an approval rule on browser_navigate holds the call until an operator
// decides, and the approved navigation and an ungated snapshot then run in a real headless Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { connect, type TestSocket } from '../support/ws-client.js';
import { rpc, startPageServer, type PageServer } from './browser-support.js';

let llm: FakeLlm;
let pages: PageServer;
let gw: Harness;
const sockets: TestSocket[] = [];
beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  pages = await startPageServer();
  gw = await startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
      },
    },
    agents: {
      default: {
        name: 'Browser agent',
        provider: 'fake',
        model: 'fake-model',
        tools: ['browser_navigate', 'browser_snapshot', 'browser_tabs'],
        requireApproval: ['browser_navigate'],
      },
    },
    browser: { allowPrivateNetwork: true, idleMs: 0 },
  });
});
afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.close()));
  await gw?.close();
  await pages?.close();
  await llm?.close();
});

interface Pending {
  id: string;
  toolName: string;
  args: unknown;
}

async function pending(): Promise<Pending[]> {
  return ((await rpc(gw.url, gw.tokens.admin, 'admin.approval.pending', {})).result?.requests ?? []) as Pending[];
}

/** The tool results the model was sent in its latest request. */
function toolResultsSent(): string[] {
  const body = llm.chatRequests().at(-1)?.body as { messages: { role: string; content?: unknown }[] } | undefined;
  return (body?.messages ?? []).filter((message) => message.role === 'tool').map((message) => String(message.content));
}

describe('browser tools', () => {
  it('holds browser_navigate for an approval rule, then runs it and an ungated snapshot in a real browser', async () => {
    const url = `${pages.origin}/`;
    llm.script(
      { toolCalls: [{ name: 'browser_navigate', arguments: { url } }] },
      { toolCalls: [{ name: 'browser_snapshot', arguments: {} }] },
      { text: 'The page says welcome.' },
    );
    const socket = connect(gw.wsUrl, { token: gw.tokens.rpc });
    sockets.push(socket);
    await socket.opened;
    socket.send({
      jsonrpc: '2.0',
      id: 'browse',
      method: 'agent.execute',
      params: {
        message: 'open the home page',
        sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'test', peerId: 'browse' },
      },
    });
    // The reply waits for the operator and a browser launch: longer than socket.call's 5 s on a busy machine.
    const reply = socket.waitFor((frame) => frame.id === 'browse', 15_000);

    await expect.poll(async () => (await pending()).length, { timeout: 10_000 }).toBe(1);
    const [request] = await pending();
    expect(request).toMatchObject({ toolName: 'browser_navigate', args: { url } });
    // The call waits: the model was asked once and no browser was started for it.
    expect(llm.chatRequests()).toHaveLength(1);
    const offered = (llm.chatRequests()[0]?.body as { tools: { function: { name: string } }[] }).tools.map(
      (tool) => tool.function.name,
    );
    expect(offered).toEqual(['browser_navigate', 'browser_snapshot', 'browser_tabs']);
    expect((await rpc(gw.url, gw.tokens.rpc, 'browser.status')).result).toEqual({ running: false });

    const resolved = await rpc(gw.url, gw.tokens.admin, 'admin.approval.resolve', { id: request?.id, approved: true });
    expect(resolved.error).toBeUndefined();
    expect((await reply).result).toMatchObject({ response: 'The page says welcome.', finishReason: 'stop' });
    const [navigated, snapshot] = toolResultsSent();
    expect(JSON.parse(navigated ?? '{}')).toMatchObject({ url, title: 'Home', status: 200 });
    expect(snapshot).toContain('heading \\"Welcome\\"');
    expect((await rpc(gw.url, gw.tokens.rpc, 'browser.status')).result).toMatchObject({ running: true, url });
  });
});
