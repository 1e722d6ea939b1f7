// GET /health and /api/health (the process is alive) and GET /ready (its storage and coordination answer):
// unauthenticated, exempt from rate limiting and from the connection reserve's token check.
import type { FastifyInstance } from 'fastify';
import { DEPENDENCY_RETRY_AFTER_MS, retryAfterHeaderSeconds } from '../errors.js';
import { createReadiness, type DependencyProbes } from './readiness.js';

export interface HealthRoutesDeps {
  now: () => number;
  /** Pings of the dependencies /ready reports; absent ones are in process. */
  dependencies?: DependencyProbes;
}

export function registerHealthRoutes(app: FastifyInstance, { now, dependencies = {} }: HealthRoutesDeps): void {
  const noRateLimit = { config: { rateLimit: false } };
  const health = () => ({ status: 'ok', timestamp: new Date(now()).toISOString() });
  const readiness = createReadiness({ probes: dependencies, now });
  app.get('/health', noRateLimit, async function health_() {
    return health();
  });
  app.get('/api/health', noRateLimit, async function apiHealth() {
    return health();
  });
  // A load balancer takes a replica out of rotation on 503 and sends it traffic again once it answers 200.
  app.get('/ready', noRateLimit, async function ready(_request, reply) {
    const { isReady, dependencies: states } = await readiness();
    if (!isReady)
      reply.code(503).header('retry-after', retryAfterHeaderSeconds({ retryAfterMs: DEPENDENCY_RETRY_AFTER_MS }));
    return {
      status: isReady ? 'ready' : 'unavailable',
      timestamp: new Date(now()).toISOString(),
      dependencies: states,
    };
  });
}
