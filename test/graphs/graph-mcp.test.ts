// A tool node naming one MCP tool (`mcp:<server>/<tool>`) through a started gateway with MCP fixture servers: accepted
// only for a configured server, run through the server under the default agent's approval rules, and failed with the
// mcp_unavailable message when the server cannot be reached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { freePort } from '../support/free-port.js';
import type { Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { startMcpGateway } from '../support/mcp-gateway.js';
import { startMcpHttpServer, type McpHttpFixture } from '../support/mcp-http-server.js';

interface StatusView {
  state: string;
  error?: string;
  output?: unknown;
  nodes: { id: string; state: string; output?: unknown; error?: string }[];
}

let llm: FakeLlm;
let files: McpHttpFixture;
let harness: Harness;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  files = await startMcpHttpServer();
  harness = await startMcpGateway(llm, {
    mcp: {
      servers: {
        files: { transport: 'http', url: files.url },
        down: { transport: 'http', url: `http://127.0.0.1:${await freePort()}/mcp` },
      },
    },
    tools: [],
    // Tool nodes run as the default agent, under its approval rules: an MCP tool by its <server>__<tool> name.
    requireApproval: [{ tool: 'files__echo', args: { text: 'secret*' } }],
    gateway: { rateLimit: { maxRequests: 10_000, windowMs: 60_000 } },
  });
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await files?.close();
  await llm?.close();
});

async function rpc(token: string, method: string, params: unknown = {}): Promise<unknown> {
  const response = await callRpc(harness.url, token, method, params);
  if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result;
}

const echoGraph = (name: string, tool: string) => ({
  name,
  vars: { text: { type: 'string', default: 'hello' } },
  nodes: [{ id: 'echo', type: 'tool', tool, args: { text: '{{vars.text}}' } }],
  output: '{{nodes.echo.output}}',
});

async function run(name: string, vars: Record<string, unknown> = {}): Promise<string> {
  return ((await rpc(harness.tokens.rpc, 'graph.run', { name, vars })) as { runId: string }).runId;
}

const status = async (runId: string) => (await rpc(harness.tokens.rpc, 'graph.status', { runId })) as StatusView;

async function untilEnded(runId: string): Promise<StatusView> {
  await expect.poll(async () => (await status(runId)).state, { timeout: 15_000, interval: 50 }).not.toBe('running');
  return status(runId);
}

describe('MCP tools in tool nodes', () => {
  it('runs a tool node naming one MCP tool through its server', async () => {
    await rpc(harness.tokens.admin, 'graph.define', { definition: echoGraph('mcp-echo', 'mcp:files/echo') });
    const done = await untilEnded(await run('mcp-echo'));
    expect(done).toMatchObject({ state: 'completed', output: 'hello' });
    expect(done.nodes).toEqual([expect.objectContaining({ id: 'echo', state: 'completed', output: 'hello' })]);
  });

  it("holds an MCP tool node under the default agent's approval rules until an operator approves", async () => {
    await rpc(harness.tokens.admin, 'graph.define', { definition: echoGraph('mcp-held', 'mcp:files/echo') });
    const runId = await run('mcp-held', { text: 'secret plans' });
    await expect
      .poll(async () => (await status(runId)).nodes[0]?.state, { timeout: 15_000, interval: 50 })
      .toBe('waiting');
    const pending = (await rpc(harness.tokens.admin, 'admin.approval.pending')) as {
      requests: { id: string; toolName: string; args: unknown; rootRunId?: string }[];
    };
    const request = pending.requests.find((entry) => entry.rootRunId === runId);
    expect(request).toMatchObject({ toolName: 'files__echo', args: { text: 'secret plans' } });
    await rpc(harness.tokens.admin, 'admin.approval.resolve', { id: request?.id, approved: true });
    expect(await untilEnded(runId)).toMatchObject({ state: 'completed', output: 'secret plans' });
  });

  it('refuses at define time an MCP entry of a server that is not configured, or of a whole server, naming the path', async () => {
    for (const tool of ['mcp:ghost/echo', 'mcp:files']) {
      const refused = await callRpc(harness.url, harness.tokens.admin, 'graph.define', {
        definition: echoGraph('mcp-refused', tool),
      });
      expect(refused.error, tool).toMatchObject({ code: -32602, message: expect.stringContaining('nodes[0].tool') });
    }
    const missing = await callRpc(harness.url, harness.tokens.rpc, 'graph.get', { name: 'mcp-refused' });
    expect(missing.error).toMatchObject({ data: { kind: 'not_found' } });
  });

  it('fails the node with the mcp_unavailable message when the server cannot be reached', async () => {
    await rpc(harness.tokens.admin, 'graph.define', { definition: echoGraph('mcp-down', 'mcp:down/echo') });
    const failed = await untilEnded(await run('mcp-down'));
    expect(failed.state).toBe('failed');
    expect(failed.nodes[0]).toMatchObject({
      state: 'failed',
      error: expect.stringContaining('MCP server down is unavailable'),
    });
  });
});
