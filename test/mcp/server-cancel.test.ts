// Ending /mcp work early: a cancelled call or a client that hangs up stops the turn upstream, and a gateway shutdown
// ends the open server-to-client streams cleanly instead of cutting their sockets.
import { describe, expect, it } from 'vitest';
import { connectMcp, postMcp, useMcpServerWorld } from '../support/mcp-server-client.js';

const NEVER = new Promise<never>(() => undefined);

describe('/mcp cancellation and shutdown', () => {
  const world = useMcpServerWorld();

  it('stops the turn when the SDK client cancels the call', async () => {
    const mcp = await connectMcp(world.harness.url, world.harness.tokens.mcpClient);
    world.llm.script({ text: 'never sent', heldUntil: NEVER });
    const before = world.llm.chatRequests().length;
    const cancel = new AbortController();
    const call = mcp.client.callTool({ name: 'ask_default', arguments: { message: 'slow one' } }, undefined, {
      signal: cancel.signal,
    });
    await expect.poll(() => world.llm.chatRequests().length).toBe(before + 1);
    cancel.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => world.llm.chatRequests()[before]?.closedByClient).toBe(true);
    await mcp.close();
  });

  it('stops the turn when the HTTP client hangs up on its tools/call', async () => {
    const mcp = await connectMcp(world.harness.url, world.harness.tokens.mcpClient);
    world.llm.script({ text: 'never sent', heldUntil: NEVER });
    const before = world.llm.chatRequests().length;
    const hangUp = new AbortController();
    const call = fetch(`${world.harness.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${world.harness.tokens.mcpClient}`,
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
    await expect.poll(() => world.llm.chatRequests().length).toBe(before + 1);
    hangUp.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => world.llm.chatRequests()[before]?.closedByClient).toBe(true);
    await mcp.close();
  });

  it('ends an open server-to-client stream cleanly when the gateway shuts down', async () => {
    const { sessionId } = await postMcp(world.harness.url, { token: world.harness.tokens.rpc });
    const stream = await fetch(`${world.harness.url}/mcp`, {
      headers: {
        authorization: `Bearer ${world.harness.tokens.rpc}`,
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
    await world.harness.close();
    expect(await ended).toBe('ended');
  });
});
