// The MCP connection manager through real transports: the SDK fixture servers over stdio and Streamable HTTP.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { validateConfig } from '../../src/config/index.js';
import { isGatewayError } from '../../src/errors.js';
import { createMcpServers, type McpServers, type McpToolResult } from '../../src/mcp/index.js';
import { freePort } from '../support/free-port.js';
import { startMcpHttpServer, type McpHttpFixture } from '../support/mcp-http-server.js';

const STDIO_SCRIPT = fileURLToPath(new URL('../support/mcp-stdio-server.ts', import.meta.url));
const stdio = { transport: 'stdio', command: process.execPath, args: ['--import', 'tsx', STDIO_SCRIPT] };
const NOW = 1_780_000_000_000;

let managers: McpServers[] = [];
let fixtures: McpHttpFixture[] = [];

afterEach(async () => {
  await Promise.all(managers.map((manager) => manager.close()));
  await Promise.all(fixtures.map((fixture) => fixture.close()));
  managers = [];
  fixtures = [];
});

function manage(servers: Record<string, unknown>, maxResultBytes = 100_000): McpServers {
  const parsed = validateConfig({ mcp: { servers } }, 'test.yaml').mcp.servers;
  const manager = createMcpServers({ servers: parsed, maxResultBytes, now: () => NOW });
  managers.push(manager);
  return manager;
}

async function failureOf(work: Promise<unknown>) {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isGatewayError(error)) throw new Error(`expected a GatewayError, got ${String(error)}`);
  return error;
}

function textOf(result: McpToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MCP servers (stdio)', () => {
  it('lists the allowed tools, calls one, and records the server ready with its stderr', async () => {
    const servers = manage({ files: { ...stdio, tools: ['echo', 'pid'] } });
    expect(servers.status()).toEqual([{ name: 'files', transport: 'stdio', state: 'connecting', tools: 0 }]);
    const tools = await servers.listTools('files');
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'pid']);
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    expect(await servers.callTool('files', 'echo', { text: 'hello' })).toEqual({
      content: [{ type: 'text', text: 'hello' }],
      isError: false,
    });
    const [status] = servers.status();
    expect(status).toMatchObject({ name: 'files', state: 'ready', tools: 2, connectedAt: NOW });
    expect(status?.stderr).toMatch(/mcp fixture \d+ started/);
    const refused = await failureOf(servers.callTool('files', 'big', { chars: 1 }));
    expect(refused.kind).toBe('not_found');
    expect(refused.message).toMatch(/big.*files/);
  });

  it('reconnects a stdio server that was killed, on its next use, and kills its child on close', async () => {
    const servers = manage({ files: stdio });
    const firstPid = Number(textOf(await servers.callTool('files', 'pid', {})));
    process.kill(firstPid, 'SIGKILL');
    await vi.waitFor(() => expect(servers.status()[0]?.state).toBe('failed'));
    expect(servers.status()[0]?.lastError).toMatch(/closed/);
    const secondPid = Number(textOf(await servers.callTool('files', 'pid', {})));
    expect(secondPid).not.toBe(firstPid);
    expect(servers.status()[0]?.state).toBe('ready');
    await servers.close();
    expect(isAlive(secondPid)).toBe(false);
  });

  it('fails loudly when the command cannot be started', async () => {
    const servers = manage({ gone: { transport: 'stdio', command: '/nonexistent/mcp-server' } });
    const error = await failureOf(servers.listTools('gone'));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/MCP server gone.*ENOENT/);
    expect(servers.status()).toEqual([
      { name: 'gone', transport: 'stdio', state: 'failed', tools: 0, lastError: error.message, stderr: '' },
    ]);
  });

  it('refuses an oversized reply with a bounded error and stays usable', async () => {
    const servers = manage({ files: stdio }, 2_000);
    const error = await failureOf(servers.callTool('files', 'big', { chars: 50_000 }));
    expect(error.kind).toBe('upstream_failed');
    expect(error.message).toMatch(/big.*files.*2000 bytes/);
    expect(error.message.length).toBeLessThan(500);
    expect((await servers.callTool('files', 'big', { chars: 10 })).content).toEqual([
      { type: 'text', text: 'x'.repeat(10) },
    ]);
  });
});

describe('MCP servers (Streamable HTTP)', () => {
  it('lists the tools and calls one', async () => {
    const fixture = await startMcpHttpServer();
    fixtures.push(fixture);
    const servers = manage({ remote: { transport: 'http', url: fixture.url } });
    expect((await servers.listTools('remote')).map((tool) => tool.name).sort()).toEqual([
      'add_tool',
      'big',
      'echo',
      'pid',
      'slow',
    ]);
    expect(await servers.callTool('remote', 'echo', { text: 'over http' })).toEqual({
      content: [{ type: 'text', text: 'over http' }],
      isError: false,
    });
    expect(servers.status()).toEqual([
      { name: 'remote', transport: 'http', state: 'ready', tools: 5, connectedAt: NOW },
    ]);
  });

  it('bounds a slow reply by timeoutMs and stays usable', async () => {
    const fixture = await startMcpHttpServer();
    fixtures.push(fixture);
    // Over HTTP: the fixture answers at once, so only the slow tool itself can reach the bound.
    const slow = manage({ remote: { transport: 'http', url: fixture.url, timeoutMs: 500 } });
    await slow.listTools('remote');
    const error = await failureOf(slow.callTool('remote', 'slow', { ms: 60_000 }));
    expect(error.kind).toBe('upstream_failed');
    expect(error.message).toMatch(/slow.*remote.*500 ms/);
    expect(await slow.callTool('remote', 'echo', { text: 'still here' })).toMatchObject({
      content: [{ type: 'text', text: 'still here' }],
    });
  });

  it('fails loudly when nothing listens at the url, and shows a disabled server as disabled', async () => {
    const port = await freePort();
    const servers = manage({
      remote: { transport: 'http', url: `http://127.0.0.1:${port}/mcp` },
      off: { transport: 'http', url: `http://127.0.0.1:${port}/mcp`, enabled: false },
    });
    const error = await failureOf(servers.listTools('remote'));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/MCP server remote/);
    expect(servers.status()).toEqual([
      { name: 'remote', transport: 'http', state: 'failed', tools: 0, lastError: error.message },
      { name: 'off', transport: 'http', state: 'disabled', tools: 0 },
    ]);
    const disabled = await failureOf(servers.callTool('off', 'echo', { text: 'x' }));
    expect(disabled.kind).toBe('unavailable');
    expect(disabled.message).toMatch(/MCP server off is disabled/);
    expect((await failureOf(servers.listTools('nope'))).kind).toBe('not_found');
  });
});
