// GET /health requests per second over keep-alive connections: the gateway against a bare node:http server.
import { createServer } from 'node:http';
import { compare, isEntryPoint, isRecord, runStandalone, wantsSurface, type BenchOptions } from './lib/bench.js';
import { startGateway } from './lib/gateway.js';
import type { LoadSpec } from './lib/load.js';
import type { ComparisonRow } from './lib/measure.js';
import { listenOnLoopback, type ListeningServer } from './lib/servers.js';

/** Keep-alive connections, one request in flight on each (HTTP/1.1 without pipelining). */
const SCENARIOS = [{ connections: 1 }, { connections: 32 }] as const;

/** The baseline: node:http answering the same JSON as the gateway's /health. */
async function startBareHealthServer(): Promise<ListeningServer> {
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/health') {
      const body = JSON.stringify({ status: 'ok', timestamp: new Date().toISOString() });
      response.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
      return;
    }
    response.writeHead(404).end();
  });
  return listenOnLoopback(server);
}

function isHealthy(body: unknown): boolean {
  return isRecord(body) && body.status === 'ok' && typeof body.timestamp === 'string';
}

export async function run(options: BenchOptions): Promise<ComparisonRow[]> {
  const rows: ComparisonRow[] = [];
  for (const { connections } of SCENARIOS) {
    const surface = `GET /health c=${connections}`;
    if (!wantsSurface(options, surface)) continue;
    const healthLoad = (host: string, port: number): LoadSpec => ({
      kind: 'http',
      host,
      port,
      connections,
      request: { method: 'GET', path: '/health' },
      expectStatus: 200,
      warmupMs: options.warmupMs,
      warmupRequests: options.warmupRequests,
      durationMs: options.durationMs,
      maxRequests: options.maxRequests,
    });
    const row = await compare(
      { surface, connections, depth: 1 },
      {
        label: 'baseline (node:http)',
        start: startBareHealthServer,
        loadFor: (server) => healthLoad(server.host, server.port),
        isExpectedBody: isHealthy,
      },
      {
        label: 'gateway (fastify)',
        start: () => startGateway(),
        loadFor: (server) => healthLoad(server.host, server.port),
        isExpectedBody: isHealthy,
      },
      options,
    );
    rows.push(row);
  }
  return rows;
}

if (isEntryPoint(import.meta.url)) await runStandalone(run);
