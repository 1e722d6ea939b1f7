// GET / redirects to /app/ and /app/* serves the dashboard's static files when the dashboard is enabled; a page path
// with no file behind it (a deep link such as /app/sessions) gets index.html, whose router renders that page.
import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { GatewayError } from '../errors.js';

/** The last path segment names a file (`app.js`, `missing.png`): a miss is a real 404, not a page of the app. */
const FILE_SEGMENT = /\/[^/]*\.[^/]*$/;

export async function registerDashboard(
  app: FastifyInstance,
  { webDistPath }: { webDistPath: string | null },
): Promise<void> {
  app.get('/', async function redirectToDashboard(_request, reply) {
    return reply.redirect('/app/', 302);
  });
  if (webDistPath === null || !existsSync(webDistPath)) return;
  await app.register(
    async function dashboardPlugin(scope) {
      await scope.register(fastifyStatic, {
        root: webDistPath,
        prefix: '/',
        redirect: true,
        index: ['index.html'],
        wildcard: true,
      });
      scope.setNotFoundHandler(async function dashboardPage(request, reply) {
        const path = request.url.split('?')[0] ?? '';
        if (request.method !== 'GET' || FILE_SEGMENT.test(path)) {
          throw new GatewayError('not_found', `Route ${request.method} ${path} not found`);
        }
        // The shell must not be cached under a page URL, so a new build is picked up on the next visit.
        return reply.header('cache-control', 'no-cache').sendFile('index.html');
      });
    },
    { prefix: '/app' },
  );
}
