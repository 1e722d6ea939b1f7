// /mcp authentication and scope: mcp-client, rpc and * tokens connect; none, bad, api and admin-only tokens are refused;
// the mcp-client token reaches nothing else; an MCP session id is only good for the token that opened it.
import { describe, expect, it } from 'vitest';
import { callRpc } from '../support/http-client.js';
import { connectMcp, postMcp, textOf, useMcpServerWorld } from '../support/mcp-server-client.js';

describe('/mcp authentication and scope', () => {
  const world = useMcpServerWorld();

  it('answers 401 in the REST envelope without a token or with a wrong one', async () => {
    for (const token of [undefined, 'wrong-secret-0123456789abcdefghijklmnop']) {
      const reply = await postMcp(world.harness.url, token === undefined ? {} : { token });
      expect(reply.status).toBe(401);
      expect(reply.body).toMatchObject({ error: { code: 'unauthorized' } });
      expect(reply.sessionId).toBeNull();
    }
  });

  it('answers 403 to an api-only and an admin-only token, and the SDK client cannot connect with them', async () => {
    for (const token of [world.harness.tokens.api, world.harness.tokens.adminOnly]) {
      const reply = await postMcp(world.harness.url, { token });
      expect(reply.status).toBe(403);
      expect(reply.body).toMatchObject({ error: { code: 'forbidden' } });
      await expect(connectMcp(world.harness.url, token)).rejects.toMatchObject({ code: 403, message: /forbidden/ });
    }
  });

  it('lets mcp-client, rpc and * tokens connect and list the tools', async () => {
    for (const token of [world.harness.tokens.mcpClient, world.harness.tokens.rpc, world.harness.tokens.admin]) {
      const mcp = await connectMcp(world.harness.url, token);
      expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(['ask_default']);
      await mcp.close();
    }
  });

  it('keeps the mcp-client token out of everything else: /api/events, /media and /rpc methods', async () => {
    const headers = { authorization: `Bearer ${world.harness.tokens.mcpClient}` };
    const events = await fetch(`${world.harness.url}/api/events`, { headers });
    expect(events.status).toBe(403);
    await events.body?.cancel();
    const media = await fetch(`${world.harness.url}/media/some-file.png`, { headers });
    expect(media.status).toBe(403);
    expect(await media.json()).toMatchObject({ error: { code: 'forbidden' } });
    // /rpc lets any token in and refuses per method (spec: -32603 "Insufficient scope"), the JSON-RPC form of 403.
    const rpc = await callRpc(world.harness.url, world.harness.tokens.mcpClient, 'agent.execute', { message: 'hi' });
    expect(rpc.error).toMatchObject({ code: -32603, data: { kind: 'forbidden' } });
  });

  it("refuses another token's MCP session id with 404, as an unknown one; the owner keeps using it", async () => {
    const owner = await connectMcp(world.harness.url, world.harness.tokens.mcpClient);
    const sessionId = owner.transport.sessionId ?? '';
    expect(sessionId).not.toBe('');
    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list' };
    const stolen = await postMcp(world.harness.url, { token: world.harness.tokens.rpc, sessionId, body: list });
    expect(stolen.status).toBe(404);
    expect(stolen.body).toMatchObject({ error: { code: 'not_found' } });
    const unknown = await postMcp(world.harness.url, {
      token: world.harness.tokens.rpc,
      sessionId: 'nope',
      body: list,
    });
    expect(unknown).toEqual({ ...stolen, body: unknown.body });
    const stream = await fetch(`${world.harness.url}/mcp`, {
      headers: {
        authorization: `Bearer ${world.harness.tokens.admin}`,
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
      },
    });
    expect(stream.status).toBe(404);
    await stream.body?.cancel();
    const ended = await fetch(`${world.harness.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${world.harness.tokens.admin}`, 'mcp-session-id': sessionId },
    });
    expect(ended.status).toBe(404);
    world.llm.script({ text: 'still mine' });
    const answer = await owner.client.callTool({ name: 'ask_default', arguments: { message: 'hello' } });
    expect(textOf(answer)).toBe('still mine');
    await owner.close();
  });

  it('ends a session on DELETE: its id then answers 404', async () => {
    const mcp = await connectMcp(world.harness.url, world.harness.tokens.mcpClient);
    const sessionId = mcp.transport.sessionId ?? '';
    await mcp.transport.terminateSession();
    const after = await postMcp(world.harness.url, {
      token: world.harness.tokens.mcpClient,
      sessionId,
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    });
    expect(after.status).toBe(404);
    await mcp.close();
  });

  it('refuses a request without a session id unless it is initialize, JSON-RPC batches, bad JSON and huge bodies', async () => {
    const token = world.harness.tokens.mcpClient;
    const list = { jsonrpc: '2.0', id: 3, method: 'tools/list' };
    const withoutSession = await postMcp(world.harness.url, { token, body: list });
    expect(withoutSession.status).toBe(400);
    expect(withoutSession.body).toMatchObject({ error: { code: 'invalid_request' } });
    const batch = await postMcp(world.harness.url, { token, body: [list, list] });
    expect(batch.status).toBe(400);
    expect(batch.body).toMatchObject({ error: { code: 'invalid_request', message: /batches/ } });
    const malformed = await postMcp(world.harness.url, { token, body: '{"jsonrpc":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error: { code: 'invalid_request' } });
    const huge = await postMcp(world.harness.url, { token, body: { ...list, params: { pad: 'x'.repeat(1_100_000) } } });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: { code: 'payload_too_large' } });
  });

  it("ends a revoked token's MCP sessions: its open stream closes at once", async () => {
    const created = await callRpc(world.harness.url, world.harness.tokens.admin, 'tokens.create', {
      id: 'mcp-temp',
      scopes: ['mcp-client'],
    });
    const { secret } = created.result as { secret: string };
    const { sessionId } = await postMcp(world.harness.url, { token: secret });
    const stream = await fetch(`${world.harness.url}/mcp`, {
      headers: {
        authorization: `Bearer ${secret}`,
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
    const revoked = await callRpc(world.harness.url, world.harness.tokens.admin, 'tokens.revoke', { id: 'mcp-temp' });
    expect(revoked.error).toBeUndefined();
    expect(await ended).toBe('ended');
  });
});
