// GET / redirects to /app/ and /app/* serves the dashboard's static files when the dashboard is enabled.
import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

export async function registerDashboard(app: FastifyInstance, { webDistPath }: { webDistPath: string | null }): Promise<void> {
  app.get('/', async function redirectToDashboard(_request, reply) {
    return reply.redirect('/app/', 302);
  });
  if (webDistPath === null || !existsSync(webDistPath)) return;
  await app.register(fastifyStatic, {
    root: webDistPath,
    prefix: '/app/',
    redirect: true,
    index: ['index.html'],
    wildcard: true,
  });
}
