// /mcp bounds: live sessions per token and in all, idle sessions ended, and tool calls counted by the token's
// gateway.rateLimit (a limited call is HTTP 429 and never reaches the agent).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { connectMcp, postMcp, textOf } from '../support/mcp-server-client.js';

const LIST = { jsonrpc: '2.0', id: 9, method: 'tools/list' };
const START = 1_780_000_000_000;

describe('/mcp session bounds', () => {
  let harness: Harness;
  let clock = START;

  async function patch(server: Record<string, unknown>): Promise<void> {
    const response = await callRpc(harness.url, harness.tokens.admin, 'config.patch', { mcp: { server } });
    expect(response.error).toBeUndefined();
  }

  /** A raw initialize as `token`: the new session's id. */
  async function open(token: string): Promise<string> {
    const reply = await postMcp(harness.url, { token });
    expect(reply.status).toBe(200);
    return reply.sessionId ?? '';
  }

  const listWith = (token: string, sessionId: string) => postMcp(harness.url, { token, sessionId, body: LIST });

  beforeAll(async () => {
    // The gateway's clock is the test's, so idleness is reached without waiting.
    harness = await startGateway({ app: { now: () => clock } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it("ends a token's least recently used session past maxSessionsPerToken; other tokens keep theirs", async () => {
    await patch({ maxSessionsPerToken: 2 });
    const { mcpClient, rpc } = harness.tokens;
    const other = await open(rpc);
    const first = await open(mcpClient);
    const second = await open(mcpClient);
    expect((await listWith(mcpClient, first)).status).toBe(200);
    const third = await open(mcpClient);
    expect((await listWith(mcpClient, second)).status).toBe(404);
    expect((await listWith(mcpClient, first)).status).toBe(200);
    expect((await listWith(mcpClient, third)).status).toBe(200);
    expect((await listWith(rpc, other)).status).toBe(200);
  });

  it('refuses a new session with 503 and Retry-After once maxSessions are live', async () => {
    await patch({ maxSessionsPerToken: 16, maxSessions: 4 });
    // Three sessions are live from the test before; one more makes four.
    await open(harness.tokens.admin);
    const response = await fetch(`${harness.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${harness.tokens.admin}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await response.json()).toMatchObject({ error: { code: 'unavailable', message: /4 MCP sessions/ } });
  });

  it('ends a session idle for longer than sessionIdleMs: its id answers 404, and a new one can open', async () => {
    await patch({ maxSessions: 1_000, sessionIdleMs: 60_000 });
    const token = harness.tokens.mcpClient;
    const kept = await open(token);
    clock += 30_000;
    expect((await listWith(token, kept)).status).toBe(200);
    clock += 60_001;
    expect((await listWith(token, kept)).status).toBe(404);
    expect((await listWith(token, await open(token))).status).toBe(200);
  });
});

describe('/mcp rate limit', () => {
  let llm: FakeLlm;
  let harness: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      gateway: { rateLimit: { maxRequests: 8, windowMs: 600_000 } },
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
  });

  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  it("counts each tool call against the token's limit: past it the call is 429 and the agent never runs", async () => {
    const mcp = await connectMcp(harness.url, harness.tokens.mcpClient);
    let answered = 0;
    let refused: unknown;
    while (refused === undefined && answered < 10) {
      llm.script({ text: `answer ${answered}` });
      try {
        const result = await mcp.client.callTool({ name: 'ask_default', arguments: { message: 'hi' } });
        expect(textOf(result)).toBe(`answer ${answered}`);
        answered += 1;
      } catch (error) {
        refused = error;
      }
    }
    expect(refused).toMatchObject({ code: 429 });
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThan(8);
    expect(llm.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(answered);
    // The limit is the token's: another token still gets in.
    const other = await postMcp(harness.url, { token: harness.tokens.rpc });
    expect(other.status).toBe(200);
    await mcp.close();
  });
});
