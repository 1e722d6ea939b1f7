// The gateway as an MCP server through the SDK's own Client: ask_<agent> runs a real turn against the fake LLM,
// sessions are the token's, tools/list follows agent and exposeTools changes, calls are audited content-free.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, TOKEN_IDS, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { connectMcp, textOf, type McpTestClient } from '../support/mcp-server-client.js';

const MCP_DEFAULT_KEY = `default:${TOKEN_IDS.mcpClient}:mcp:default`;

describe('MCP server tools over /mcp', () => {
  let llm: FakeLlm;
  let harness: Harness;
  let mcp: McpTestClient;

  async function admin(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const response = await callRpc(harness.url, harness.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result;
  }

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: {
        default: { name: 'Assistant', provider: 'fake', model: 'fake-model' },
        resting: { name: 'Resting', provider: 'fake', model: 'fake-model', suspended: true },
      },
    });
    mcp = await connectMcp(harness.url, harness.tokens.mcpClient);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await llm?.close();
  });

  it("lists one ask_<agentId> tool per active agent, and none of the gateway's own tools by default", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['ask_default']);
    expect(tools[0]).toMatchObject({
      title: 'Assistant',
      inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
    });
  });

  it("answers ask_default with the agent's reply, and continues the session with the returned sessionKey", async () => {
    llm.script({ text: 'Paris is the capital.' });
    const first = await mcp.client.callTool({ name: 'ask_default', arguments: { message: 'Capital of France?' } });
    expect(first.isError).toBeFalsy();
    expect(textOf(first)).toBe('Paris is the capital.');
    expect(first.structuredContent).toEqual({
      response: 'Paris is the capital.',
      sessionKey: MCP_DEFAULT_KEY,
      finishReason: 'stop',
    });

    llm.script({ text: 'About two million.' });
    const second = await mcp.client.callTool({
      name: 'ask_default',
      arguments: { message: 'How many people live there?', sessionKey: MCP_DEFAULT_KEY },
    });
    expect(textOf(second)).toBe('About two million.');
    // The model saw the first exchange: the turn continued the same session.
    const sent = JSON.stringify(llm.requests.at(-1)?.body);
    expect(sent).toContain('Capital of France?');
    expect(sent).toContain('Paris is the capital.');
  });

  it("runs in the channel mcp: obs.explain names it, and the turn's session is the token's", async () => {
    const report = (await admin('obs.explain', { sessionKey: MCP_DEFAULT_KEY })) as Record<string, unknown>;
    expect(report).toMatchObject({ sessionKey: MCP_DEFAULT_KEY, agentId: 'default', channel: 'mcp' });
    const sessions = (await admin('session.list', {})) as { sessions: { sessionKey: string; ownerId?: string }[] };
    expect(JSON.stringify(sessions)).toContain(MCP_DEFAULT_KEY);
  });

  it("refuses another token's session key as forbidden, and leaves that session untouched", async () => {
    const theirs = 'default:rpc-client:rpc:private';
    const created = await callRpc(harness.url, harness.tokens.rpc, 'agent.execute', {
      message: 'secret plan',
      sessionKey: { tenantId: 'default', userId: 'rpc-client', channelId: 'rpc', peerId: 'private' },
    });
    expect(created.error).toBeUndefined();
    const calls = llm.requests.length;
    const refused = await mcp.client.callTool({
      name: 'ask_default',
      arguments: { message: 'what was the plan?', sessionKey: theirs },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^forbidden: /);
    expect(llm.requests.length).toBe(calls);
  });

  it('answers a failed turn as isError with its message, and bad arguments as isError naming them', async () => {
    llm.script({ status: 500, errorMessage: 'model exploded' });
    const failed = await mcp.client.callTool({
      name: 'ask_default',
      arguments: { message: 'fail please', sessionKey: `default:${TOKEN_IDS.mcpClient}:mcp:failing` },
    });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain('500');
    const invalid = await mcp.client.callTool({ name: 'ask_default', arguments: { message: 42 } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/Invalid arguments: message/);
    await expect(mcp.client.callTool({ name: 'ask_nobody', arguments: { message: 'hi' } })).rejects.toThrow(
      /Unknown tool: ask_nobody/,
    );
  });

  it('audits every call content-free: tool, token, outcome and duration, never the message', async () => {
    llm.script({ text: 'audited answer' });
    await mcp.client.callTool({ name: 'ask_default', arguments: { message: 'TOP-SECRET-MESSAGE-TEXT' } });
    const { rows } = (await admin('obs.audit.query', { kind: 'mcp.tool_call' })) as {
      rows: { action: string; actor: string; outcome: string; agentId: string | null; refs: string }[];
    };
    const [latest] = rows;
    expect(latest).toMatchObject({ action: 'ask_default', actor: TOKEN_IDS.mcpClient, outcome: 'ok' });
    expect(JSON.parse(latest?.refs ?? '{}')).toMatchObject({ durationMs: expect.any(Number), transport: 'mcp' });
    expect(rows.map((row) => row.outcome)).toEqual(expect.arrayContaining(['ok', 'denied', 'error']));
    expect(JSON.stringify(rows)).not.toContain('TOP-SECRET-MESSAGE-TEXT');
    expect(JSON.stringify(rows)).not.toContain('secret plan');
  });

  it('sends list_changed when an agent is added, suspended or resumed, and tools/list follows', async () => {
    const added = mcp.nextListChanged();
    await admin('agents.create', { agentId: 'helper', name: 'Helper', provider: 'fake', model: 'fake-model' });
    await added;
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(['ask_default', 'ask_helper']);
    llm.script({ text: 'helper here' });
    expect(textOf(await mcp.client.callTool({ name: 'ask_helper', arguments: { message: 'hi' } }))).toBe('helper here');

    const resumed = mcp.nextListChanged();
    await admin('agents.resume', { agentId: 'resting' });
    await resumed;
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toContain('ask_resting');
    const suspended = mcp.nextListChanged();
    await admin('agents.suspend', { agentId: 'helper' });
    await suspended;
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(['ask_default', 'ask_resting']);
  });

  it('exposes the gateway tools named in mcp.server.exposeTools, run for the token', async () => {
    const changed = mcp.nextListChanged();
    await admin('config.patch', { mcp: { server: { exposeTools: ['current_time', 'no_such_tool'] } } });
    await changed;
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('current_time');
    expect(tools.map((tool) => tool.name)).not.toContain('no_such_tool');
    const clock = await mcp.client.callTool({ name: 'current_time', arguments: {} });
    expect(clock.isError).toBeFalsy();
    expect(textOf(clock)).toMatch(/\d{4}-\d{2}-\d{2}/);
    const bad = await mcp.client.callTool({ name: 'current_time', arguments: { timezone: 'Mars/Olympus' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/invalid input for current_time/);
  });

  it('never exposes a tool an approval rule of any agent gates: it would run without the operator', async () => {
    const gated = mcp.nextListChanged();
    await admin('config.patch', { agents: { default: { requireApproval: [{ tool: 'current_time' }] } } });
    await gated;
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).not.toContain('current_time');
    await expect(mcp.client.callTool({ name: 'current_time', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });
});
