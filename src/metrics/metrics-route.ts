// GET /metrics: the Prometheus text exposition. Open on a loopback bind; bound elsewhere it needs an admin token or
// one with the metrics scope (a scraper's token then reaches nothing else).
import { isIPv4, isIPv6 } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { grantsMetrics, type RequestAuth } from '../server/index.js';
import { processMetrics } from './process-metrics.js';

/** Whether `host` (gateway.host) only accepts connections from this machine: localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  if (isIPv4(bare)) return bare.startsWith('127.');
  if (isIPv6(bare)) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}

/** Whether a scrape of a gateway bound to `host` must present a token (the deciding rule, tested on its own too). */
export function metricsNeedToken(host: string): boolean {
  return !isLoopbackHost(host);
}

export interface MetricsRouteDeps {
  registry: Registry;
  /** gateway.host as the gateway was started (the bind is fixed until a restart). */
  host: string;
  auth: RequestAuth;
}

export function registerMetricsRoute(scope: FastifyInstance, { registry, host, auth }: MetricsRouteDeps): void {
  const requireToken = metricsNeedToken(host) ? auth.require({ grants: grantsMetrics }) : undefined;
  // Not rate limited, as the health probes are not: a scraper busy under load is when the numbers matter.
  scope.get(
    '/metrics',
    { config: { rateLimit: false }, ...(requireToken === undefined ? {} : { onRequest: requireToken }) },
    async function metrics(_request, reply) {
      const text = (await registry.metrics()) + (await processMetrics().metrics());
      return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(text);
    },
  );
}
