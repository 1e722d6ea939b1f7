// A hostile MCP server over HTTP: it completes the handshake and lists a tool, then answers calls with malformed
// results, bodies that are not JSON, or nothing. Each becomes a bounded error, and the next call still works.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.js';
import { isGatewayError } from '../../src/errors.js';
import { createMcpServers, type McpServers } from '../../src/mcp/index.js';

/** What tools/call answers, per the `mode` argument of the call. */
type Mode = 'ok' | 'content-not-array' | 'not-json' | 'wrong-id' | 'silence';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function bodyOf(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

function answer(response: ServerResponse, id: unknown, result: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
}

function modeOf(message: Record<string, unknown>): Mode {
  const params = isRecord(message.params) ? message.params : {};
  const args = isRecord(params.arguments) ? params.arguments : {};
  return typeof args.mode === 'string' ? (args.mode as Mode) : 'ok';
}

function callAnswer(response: ServerResponse, id: unknown, mode: Mode): void {
  if (mode === 'ok') return answer(response, id, { content: [{ type: 'text', text: 'fine' }] });
  if (mode === 'content-not-array') return answer(response, id, { content: 'not an array' });
  if (mode === 'wrong-id') return answer(response, 'no-such-id', { content: [] });
  if (mode === 'not-json') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc": "2.0", "id": ');
    return;
  }
  // silence: the headers go out, the body never comes.
  response.writeHead(200, { 'content-type': 'application/json' });
}

async function startHostileServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST') return void response.writeHead(405).end();
      const message = await bodyOf(request);
      if (!isRecord(message) || typeof message.method !== 'string') return void response.writeHead(400).end();
      if (message.id === undefined) return void response.writeHead(202).end();
      if (message.method === 'initialize')
        return answer(response, message.id, {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'hostile', version: '1' },
        });
      if (message.method === 'tools/list')
        return answer(response, message.id, {
          tools: [{ name: 'odd', inputSchema: { type: 'object', properties: { mode: { type: 'string' } } } }],
        });
      callAnswer(response, message.id, modeOf(message));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, server };
}

let managers: McpServers[] = [];
let servers: Server[] = [];

afterEach(async () => {
  await Promise.all(managers.map((manager) => manager.close()));
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  managers = [];
  servers = [];
});

async function hostile(): Promise<McpServers> {
  const { url, server } = await startHostileServer();
  servers.push(server);
  const parsed = validateConfig(
    { mcp: { servers: { hostile: { transport: 'http', url, timeoutMs: 500 } } } },
    'test.yaml',
  ).mcp.servers;
  const manager = createMcpServers({ servers: parsed, maxResultBytes: 100_000, now: () => 0 });
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

describe('a hostile MCP server', () => {
  it.each(['content-not-array', 'not-json', 'wrong-id', 'silence'] as const)(
    'turns a %s reply into a bounded error, and the next call works',
    async (mode) => {
      const manager = await hostile();
      const error = await failureOf(manager.callTool('hostile', 'odd', { mode }));
      expect(error.message).toMatch(/odd/);
      expect(error.message.length).toBeLessThan(600);
      // The call failed, not the server: it stays ready, with no backoff before the next call.
      expect(manager.status()[0]?.state).toBe('ready');
      const fine = await manager.callTool('hostile', 'odd', { mode: 'ok' });
      expect(fine.content).toEqual([{ type: 'text', text: 'fine' }]);
    },
  );
});
