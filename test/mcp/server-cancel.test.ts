// Ending /mcp work early: a cancelled call or a client that hangs up stops the turn upstream, and a gateway shutdown
// ends the open server-to-client streams cleanly instead of cutting their sockets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { connectMcp, postMcp } from '../support/mcp-server-client.js';

const NEVER = new Promise<never>(() => undefined);

describe('/mcp cancellation and shutdown', () => {
  let llm: FakeLlm;
  let harness: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
  });

  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  it('stops the turn when the SDK client cancels the call', async () => {
    const mcp = await connectMcp(harness.url, harness.tokens.mcpClient);
    llm.script({ text: 'never sent', heldUntil: NEVER });
    const before = llm.chatRequests().length;
    const cancel = new AbortController();
    const call = mcp.client.callTool({ name: 'ask_default', arguments: { message: 'slow one' } }, undefined, {
      signal: cancel.signal,
    });
    await expect.poll(() => llm.chatRequests().length).toBe(before + 1);
    cancel.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => llm.chatRequests()[before]?.closedByClient).toBe(true);
    await mcp.close();
  });

  it('stops the turn when the HTTP client hangs up on its tools/call', async () => {
    const mcp = await connectMcp(harness.url, harness.tokens.mcpClient);
    llm.script({ text: 'never sent', heldUntil: NEVER });
    const before = llm.chatRequests().length;
    const hangUp = new AbortController();
    const call = fetch(`${harness.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${harness.tokens.mcpClient}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': mcp.transport.sessionId ?? '',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'raw-1',
        method: 'tools/call',
        params: { name: 'ask_default', arguments: { message: 'slow one' } },
      }),
      signal: hangUp.signal,
    });
    await expect.poll(() => llm.chatRequests().length).toBe(before + 1);
    hangUp.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => llm.chatRequests()[before]?.closedByClient).toBe(true);
    await mcp.close();
  });

  it('ends an open server-to-client stream cleanly when the gateway shuts down', async () => {
    const { sessionId } = await postMcp(harness.url, { token: harness.tokens.rpc });
    const stream = await fetch(`${harness.url}/mcp`, {
      headers: {
        authorization: `Bearer ${harness.tokens.rpc}`,
        accept: 'text/event-stream',
        'mcp-session-id': sessionId ?? '',
        'mcp-protocol-version': '2025-11-25',
      },
    });
    expect(stream.status).toBe(200);
    const reader = stream.body?.getReader();
    const ended = (async () => {
      for (;;) {
        const chunk = await reader?.read();
        if (chunk === undefined || chunk.done) return 'ended';
      }
    })().catch(() => 'cut');
    await harness.close();
    expect(await ended).toBe('ended');
  });
});
