// Secrets in MCP server config: an HTTP server's header values and a stdio server's env values are secrets, moved
// out of config.yaml into secrets.yaml, sent to the server, and never returned by config.read or config.get.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import type { Harness } from '../support/gateway-harness.js';
import { startMcpHttpServer, type McpHttpFixture } from '../support/mcp-http-server.js';
import { adminCall, executeTurn, startMcpGateway, stdioFixture, toolResultsOf } from '../support/mcp-gateway.js';

const HEADER_SECRET = 'Bearer mcp-header-secret-0123456789';
const ENV_SECRET = 'mcp-env-secret-0123456789';

let llm: FakeLlm;
let remote: McpHttpFixture;
let harness: Harness;

beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  remote = await startMcpHttpServer();
  harness = await startMcpGateway(llm, {
    mcp: {
      servers: {
        remote: { transport: 'http', url: remote.url, headers: { Authorization: HEADER_SECRET } },
        files: stdioFixture({ env: { FILES_TOKEN: ENV_SECRET } }),
      },
    },
    tools: ['mcp:remote/echo'],
    app: { env: { MCP_REMOTE_URL: remote.url } },
  });
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await remote?.close();
  await llm?.close();
});

describe('MCP server secrets', () => {
  it('keeps header and env values out of config.yaml as ${secret:…} references', async () => {
    const file = await readFile(harness.paths.configPath, 'utf8');
    expect(file).not.toContain(HEADER_SECRET);
    expect(file).not.toContain(ENV_SECRET);
    expect(file).toContain('Authorization: ${secret:mcp.servers.remote.headers.Authorization}');
    expect(file).toContain('FILES_TOKEN: ${secret:mcp.servers.files.env.FILES_TOKEN}');
  });

  it('sends the header to the server, yet config.read and config.get never show it', async () => {
    llm.script({ toolCalls: [{ name: 'remote__echo', arguments: { text: 'authorized' } }] }, { text: 'ok' });
    await executeTurn(harness, 'secret', 'echo');
    expect(toolResultsOf(llm)).toEqual(['authorized']);
    expect(remote.headers.length).toBeGreaterThan(0);
    expect(remote.headers.every((headers) => headers.authorization === HEADER_SECRET)).toBe(true);

    const shown = JSON.stringify([
      await adminCall(harness, 'config.read', {}),
      await adminCall(harness, 'config.read', { section: 'mcp' }),
      await adminCall(harness, 'config.get', {}),
      await adminCall(harness, 'config.get', { section: 'mcp' }),
      await adminCall(harness, 'mcp.servers.list'),
    ]);
    expect(shown).not.toContain('mcp-header-secret');
    expect(shown).not.toContain(ENV_SECRET);
    const read = (await adminCall(harness, 'config.read', { section: 'mcp' })) as {
      servers: Record<string, { headers?: Record<string, string>; env?: Record<string, string> }>;
    };
    expect(read.servers.remote?.headers).toEqual({ Authorization: '***' });
    expect(read.servers.files?.env).toEqual({ FILES_TOKEN: '***' });
  });

  it('keeps a stored header when a redacted config is written back, and the server still gets it', async () => {
    const read = (await adminCall(harness, 'config.read', { section: 'mcp' })) as Record<string, unknown>;
    await adminCall(harness, 'config.patch', { mcp: { ...read, maxResultBytes: 2_000_000 } });
    expect(await readFile(harness.paths.configPath, 'utf8')).toContain(
      'Authorization: ${secret:mcp.servers.remote.headers.Authorization}',
    );
    remote.headers.length = 0;
    llm.reset();
    llm.script({ toolCalls: [{ name: 'remote__echo', arguments: { text: 'again' } }] }, { text: 'ok' });
    await executeTurn(harness, 'secret-2', 'echo again');
    expect(toolResultsOf(llm)).toEqual(['again']);
    expect(remote.headers.every((headers) => headers.authorization === HEADER_SECRET)).toBe(true);
  });

  it('resolves an ${ENV} reference in an HTTP server url', async () => {
    await adminCall(harness, 'config.patch', {
      mcp: { servers: { viaEnv: { transport: 'http', url: '${MCP_REMOTE_URL}', tools: ['echo'] } } },
    });
    expect(await readFile(harness.paths.configPath, 'utf8')).toContain('url: ${MCP_REMOTE_URL}');
    const listed = (await adminCall(harness, 'mcp.tools.list', { server: 'viaEnv' })) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name)).toEqual(['echo']);
  });
});
