// GET /health beside a thousand idle raw sockets (DESIGN §3 "connections"): the gateway against a bare
// node:http server held by the same flood. The latency columns are the figure to read (issue: < 100 ms).
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { compare, isEntryPoint, isRecord, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import { startGateway, type BenchGateway } from './lib/gateway.js';
import type { LoadSpec } from './lib/load.js';
import type { ComparisonRow } from './lib/measure.js';
import { listenOnLoopback, type ListeningServer } from './lib/servers.js';

const IDLE_SOCKETS = 1_000;
/** Cap and head timeout as a deployment under attack might set them; the flood reconnects what they close. */
const GATEWAY_LIMITS = { maxConnections: 2_000, headersTimeoutMs: 1_000 };

interface IdleFlood {
  stop(): void;
}

/** Keeps `count` sockets open that never send a byte, opening a new one whenever the server closes one. */
function holdIdleSockets(host: string, port: number, count: number): IdleFlood {
  const open = new Set<Socket>();
  let isStopped = false;
  function openOne(): void {
    if (isStopped) return;
    const socket = connect({ host, port });
    open.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      open.delete(socket);
      setImmediate(openOne);
    });
  }
  for (let index = 0; index < count; index += 1) openOne();
  return {
    stop() {
      isStopped = true;
      for (const socket of open) socket.destroy();
    },
  };
}

/** Wraps a server's start so that the flood runs for as long as the server does. */
function withFlood<Server extends { host: string; port: number; close(): Promise<void> }>(
  start: () => Promise<Server>,
) {
  return async (): Promise<Server> => {
    const server = await start();
    const flood = holdIdleSockets(server.host, server.port, IDLE_SOCKETS);
    return {
      ...server,
      async close() {
        flood.stop();
        await server.close();
      },
    };
  };
}

async function startBareHealthServer() {
  const server = createServer((request, response) => {
    const body = JSON.stringify({ status: 'ok', timestamp: new Date().toISOString() });
    response.writeHead(request.url === '/health' ? 200 : 404, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
  return listenOnLoopback(server);
}

function isHealthy(body: unknown): boolean {
  return isRecord(body) && body.status === 'ok';
}

export async function run(options: BenchOptions): Promise<ComparisonRow[]> {
  const surface = `GET /health c=1 beside ${IDLE_SOCKETS} idle sockets`;
  if (!wantsSurface(options, surface)) return [];
  const healthLoad = (host: string, port: number): LoadSpec => ({
    kind: 'http',
    host,
    port,
    connections: 1,
    request: { method: 'GET', path: '/health' },
    expectStatus: 200,
    warmupMs: options.warmupMs,
    warmupRequests: options.warmupRequests,
    durationMs: options.durationMs,
    maxRequests: options.maxRequests,
  });
  const row = await compare(
    { surface, connections: 1, depth: 1 },
    {
      label: 'baseline (node:http)',
      start: withFlood<ListeningServer>(startBareHealthServer),
      loadFor: (server) => healthLoad(server.host, server.port),
      isExpectedBody: isHealthy,
    },
    {
      label: 'gateway (fastify)',
      start: withFlood<BenchGateway>(() => startGateway({ config: { gateway: GATEWAY_LIMITS } })),
      loadFor: (server) => healthLoad(server.host, server.port),
      isExpectedBody: isHealthy,
    },
    options,
  );
  return [row];
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
