// GET /health and GET /api/health: unauthenticated liveness, exempt from rate limiting.
import type { FastifyInstance } from 'fastify';

export function registerHealthRoutes(app: FastifyInstance, { now }: { now: () => number }): void {
  const noRateLimit = { config: { rateLimit: false } };
  const health = () => ({ status: 'ok', timestamp: new Date(now()).toISOString() });
  app.get('/health', noRateLimit, async function health_() {
    return health();
  });
  app.get('/api/health', noRateLimit, async function apiHealth() {
    return health();
  });
}
