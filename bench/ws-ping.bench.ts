// WebSocket JSON-RPC `system.ping` round trips per second: the gateway's /ws against a bare `ws` server.
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { compare, isEntryPoint, isRecord, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import { startGateway } from './lib/gateway.js';
import type { LoadSpec } from './lib/load.js';
import type { ComparisonRow } from './lib/measure.js';
import { listenOnLoopback, type ListeningServer } from './lib/servers.js';

/** Connections x calls in flight per connection; the same for the baseline and the gateway. */
const SCENARIOS = [
  { connections: 1, depth: 1 },
  { connections: 32, depth: 1 },
] as const;

/**
 * The gateway's per-connection message limit (default 600 per minute) would answer most calls of a
 * throughput run with -32000; it is raised far above the rate reached, and it is still checked on every frame.
 * (The limiter keeps one 8-byte slot per allowed message and connection, so the window is one second.)
 */
const BENCH_WS_RATE_LIMIT = { maxMessages: 100_000, windowMs: 1_000 };

/** The baseline: node:http + `ws`, parsing each JSON-RPC request and answering what system.ping answers. */
async function startBareWsServer(): Promise<ListeningServer> {
  const server = createServer((_request, response) => {
    response.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server, path: '/ws' });
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      let request: unknown;
      try {
        request = JSON.parse(data.toString());
      } catch {
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const id = isRecord(request) ? (request.id ?? null) : null;
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, result: { pong: true, ts: Date.now() } }));
    });
  });
  return listenOnLoopback(server, () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
  });
}

function isPong(body: unknown): boolean {
  return isRecord(body) && isRecord(body.result) && body.result.pong === true;
}

export async function run(options: BenchOptions): Promise<ComparisonRow[]> {
  const rows: ComparisonRow[] = [];
  for (const { connections, depth } of SCENARIOS) {
    const surface = `ws system.ping c=${connections}`;
    if (!wantsSurface(options, surface)) continue;
    const pingLoad = (host: string, port: number, headers: Record<string, string>): LoadSpec => ({
      kind: 'ws',
      url: `ws://${host}:${port}/ws`,
      headers,
      connections,
      depth,
      method: 'system.ping',
      warmupMs: options.warmupMs,
      warmupRequests: options.warmupRequests,
      durationMs: options.durationMs,
      maxRequests: options.maxRequests,
    });
    const row = await compare(
      { surface, connections, depth },
      {
        label: 'baseline (node:http + ws)',
        start: startBareWsServer,
        loadFor: (server) => pingLoad(server.host, server.port, {}),
        isExpectedBody: isPong,
      },
      {
        label: 'gateway (/ws)',
        start: () => startGateway({ config: { gateway: { wsMessageRateLimit: BENCH_WS_RATE_LIMIT } } }),
        loadFor: (server) => pingLoad(server.host, server.port, { authorization: `Bearer ${server.token}` }),
        isExpectedBody: isPong,
      },
      options,
    );
    rows.push(row);
  }
  return rows;
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
