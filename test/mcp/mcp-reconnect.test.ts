// Reconnecting after failures with a jittered, capped backoff (an unreachable server is not asked again within it),
// and the tool list refreshed on notifications/tools/list_changed so the next turn sees a server's new tool.
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.js';
import { isGatewayError } from '../../src/errors.js';
import { createMcpServers, type McpServers } from '../../src/mcp/index.js';
import { startFakeLlm } from '../support/fake-llm-server.js';
import { executeTurn, startMcpGateway, stdioFixture, toolResultsOf, toolsOffered } from '../support/mcp-gateway.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An HTTP server that answers every request 503 and counts them. */
async function refusingServer(): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server: Server = createServer((_req, res) => {
    requests += 1;
    res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port was assigned');
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${address.port}/mcp`, requests: () => requests };
}

async function failureOf(work: Promise<unknown>) {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isGatewayError(error)) throw new Error(`expected a GatewayError, got ${String(error)}`);
  return error;
}

describe('reconnect backoff', () => {
  it('does not ask an unreachable server again within its backoff, then retries with a doubled, capped wait', async () => {
    const down = await refusingServer();
    let clock = 1_780_000_000_000;
    const servers: McpServers = createMcpServers({
      servers: validateConfig({ mcp: { servers: { down: { transport: 'http', url: down.url } } } }, 'test').mcp.servers,
      maxResultBytes: 100_000,
      now: () => clock,
      // The least jitter: each wait is half its ceiling (1 s, then 2 s, …).
      random: () => 0,
    });
    cleanups.push(() => servers.close());

    const first = await failureOf(servers.listTools('down'));
    expect(first.details.toolErrorKind).toBe('mcp_unavailable');
    const asked = down.requests();
    expect(asked).toBeGreaterThan(0);

    // Within the first wait (500 ms): the last error at once, the server not asked.
    clock += 499;
    const held = await failureOf(servers.listTools('down'));
    expect(held.message).toBe(first.message);
    expect(held.details.retryAfterMs).toBe(1);
    expect(down.requests()).toBe(asked);
    expect(servers.status()[0]).toMatchObject({ state: 'failed', lastError: first.message });

    // Past it: asked again, and the next wait doubles (1 s).
    clock += 1;
    await failureOf(servers.listTools('down'));
    const askedTwice = down.requests();
    expect(askedTwice).toBeGreaterThan(asked);
    clock += 999;
    expect((await failureOf(servers.listTools('down'))).details.retryAfterMs).toBe(1);
    expect(down.requests()).toBe(askedTwice);
    clock += 1;
    await failureOf(servers.listTools('down'));
    expect(down.requests()).toBeGreaterThan(askedTwice);

    // However many failures, a wait never passes 60 s.
    for (let attempt = 0; attempt < 10; attempt += 1) {
      clock += 60_000;
      await failureOf(servers.listTools('down'));
    }
    const before = down.requests();
    clock += 60_000;
    await failureOf(servers.listTools('down'));
    expect(down.requests()).toBeGreaterThan(before);
  });
});

describe('notifications/tools/list_changed', () => {
  it("refreshes the server's tools, so the next turn offers and runs the tool the server added", async () => {
    const llm = await startFakeLlm({ models: ['fake-model'] });
    cleanups.push(() => llm.close());
    const harness = await startMcpGateway(llm, { mcp: { servers: { files: stdioFixture() } }, tools: ['mcp:files'] });
    cleanups.push(() => harness.close());

    llm.script({ toolCalls: [{ name: 'files__add_tool', arguments: { name: 'fresh' } }] }, { text: 'added' });
    await executeTurn(harness, 'changed', 'add a tool');
    expect(toolResultsOf(llm)).toEqual(['added fresh']);
    expect(toolsOffered(llm, 0).map((tool) => tool.name)).not.toContain('files__fresh');

    llm.reset();
    llm.script({ toolCalls: [{ name: 'files__fresh', arguments: {} }] }, { text: 'used it' });
    await executeTurn(harness, 'changed', 'use the new tool');
    expect(toolsOffered(llm, 0).map((tool) => tool.name)).toContain('files__fresh');
    expect(toolResultsOf(llm).at(-1)).toBe('added');
  });
});
