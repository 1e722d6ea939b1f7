// mcp.servers.list, mcp.servers.test and mcp.tools.list over JSON-RPC on a started gateway with a stdio, an HTTP, an
// unreachable and a disabled server; admin scope only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { freePort } from '../support/free-port.js';
import type { Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { startMcpHttpServer, type McpHttpFixture } from '../support/mcp-http-server.js';
import { adminCall, serversListed, startMcpGateway, stdioFixture } from '../support/mcp-gateway.js';

let llm: FakeLlm;
let remote: McpHttpFixture;
let harness: Harness;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  remote = await startMcpHttpServer();
  harness = await startMcpGateway(llm, {
    mcp: {
      servers: {
        files: stdioFixture({ tools: ['echo', 'pid'] }),
        remote: { transport: 'http', url: remote.url, tools: ['echo'] },
        down: { transport: 'http', url: `http://127.0.0.1:${await freePort()}/mcp` },
        off: { transport: 'http', url: remote.url, enabled: false },
      },
    },
    tools: [],
  });
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await remote?.close();
  await llm?.close();
});

const errorOf = async (method: string, params: unknown) =>
  (await callRpc(harness.url, harness.tokens.admin, method, params)).error as { data?: { kind?: string } };

describe('mcp.* methods', () => {
  it('lists every server, none connected before first use', async () => {
    expect(await serversListed(harness)).toEqual([
      { name: 'files', transport: 'stdio', state: 'connecting', tools: 0 },
      { name: 'remote', transport: 'http', state: 'connecting', tools: 0 },
      { name: 'down', transport: 'http', state: 'connecting', tools: 0 },
      { name: 'off', transport: 'http', state: 'disabled', tools: 0 },
    ]);
  });

  it("lists the enabled servers' allowed tools with their schemas, leaving out the ones that fail", async () => {
    const { tools } = (await adminCall(harness, 'mcp.tools.list')) as {
      tools: { server: string; name: string; description: string; inputSchema: Record<string, unknown> }[];
    };
    expect(tools.map(({ server, name }) => `${server}/${name}`)).toEqual(['files/echo', 'files/pid', 'remote/echo']);
    expect(tools[0]).toEqual({
      server: 'files',
      name: 'echo',
      description: 'Answers the text it is given',
      inputSchema: expect.objectContaining({ type: 'object', properties: { text: { type: 'string' } } }),
    });
    const only = (await adminCall(harness, 'mcp.tools.list', { server: 'remote' })) as { tools: { name: string }[] };
    expect(only.tools.map((tool) => tool.name)).toEqual(['echo']);
    expect((await errorOf('mcp.tools.list', { server: 'nope' })).data?.kind).toBe('not_found');
    expect((await errorOf('mcp.tools.list', { server: 'down' })).data?.kind).toBe('unavailable');
  });

  it('shows the state each server reached: ready with tools and connectedAt, failed with lastError', async () => {
    const servers = await serversListed(harness);
    expect(servers.find((server) => server.name === 'files')).toMatchObject({
      state: 'ready',
      tools: 2,
      connectedAt: expect.any(Number),
      stderr: expect.stringMatching(/mcp fixture \d+ started/),
    });
    expect(servers.find((server) => server.name === 'remote')).toMatchObject({ state: 'ready', tools: 1 });
    const down = servers.find((server) => server.name === 'down');
    expect(down).toMatchObject({ state: 'failed', tools: 0 });
    expect(down?.lastError).toMatch(/^MCP server down is unavailable: /);
  });

  it('probes a server afresh: ok with its tools, or the error; an unknown name is not_found', async () => {
    expect(await adminCall(harness, 'mcp.servers.test', { name: 'files' })).toEqual({
      ok: true,
      latencyMs: expect.any(Number),
      tools: ['echo', 'pid'],
    });
    // A disabled server can be probed before it is enabled.
    expect(await adminCall(harness, 'mcp.servers.test', { name: 'off' })).toMatchObject({ ok: true });
    const down = (await adminCall(harness, 'mcp.servers.test', { name: 'down' })) as Record<string, unknown>;
    expect(down).toMatchObject({ ok: false, tools: [], error: expect.any(String) });
    expect((await errorOf('mcp.servers.test', { name: 'nope' })).data?.kind).toBe('not_found');
    expect((await errorOf('mcp.servers.test', { name: 'files', extra: 1 })).data?.kind).toBe('invalid_params');
  });

  it('refuses a token without admin scope', async () => {
    for (const method of ['mcp.servers.list', 'mcp.servers.test', 'mcp.tools.list']) {
      const response = await callRpc(
        harness.url,
        harness.tokens.rpc,
        method,
        method === 'mcp.servers.test' ? { name: 'files' } : {},
      );
      expect(response.error, method).toMatchObject({ message: "Insufficient scope: requires 'admin'" });
    }
  });
});
