// Mounts every HTTP surface the config enables on the server: CORS, health, /rpc, /v1, the webhook (live), /api and the dashboard.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ConfigStore, GatewaySection } from '../config/index.js';
import { prepareErrorReply, registerCors, useErrorEnvelope } from '../server/index.js';
import { registerDashboard } from './dashboard.js';
import { registerHealthRoutes, type HealthRoutesDeps } from './health.js';
import { OPENAI_ERRORS, openAiErrorBody, registerOpenAiRoutes, type OpenAiRoutesDeps } from './openai/index.js';
import { registerRestRoutes, type RestRoutesDeps } from './rest/index.js';
import { registerRpcRoute, type RpcRouteDeps } from './rpc-route.js';
import { registerWebhookRoute, type WebhookDeps } from './webhook.js';

export type HttpSurfacesDeps = Omit<RpcRouteDeps, 'log'> &
  Omit<OpenAiRoutesDeps, 'log' | 'shutdownSignal'> &
  Omit<RestRoutesDeps, 'log' | 'shutdownSignal' | 'isWebhookEnabled' | 'replayEvents'> &
  HttpSurfaceOptions;

interface HttpSurfaceOptions {
  /** The section at start: which surfaces are mounted (web), the dashboard path, the replay buffer. */
  gateway: GatewaySection;
  /** The section as the config is now: the webhook mounts and unmounts with gateway.webhook. */
  live: () => GatewaySection;
  /** The config store's change feed: gateway.cors applies at once. */
  onConfigChange: ConfigStore['onChange'];
  /** Dashboard files used when gateway.webDistPath is not set. */
  defaultWebDistPath: string | null;
  /** Records webhook deliveries as runs. */
  runControl: WebhookDeps['runControl'];
  /** Pushes a notification to the admin tokens' sockets: webhook sessions have no owner a token could be. */
  notifyAdmins: (method: string, params: unknown) => void;
  log: Logger;
  now: () => number;
  /** What /ready pings: the store and coordination backends. */
  dependencies?: HealthRoutesDeps['dependencies'];
}

export async function registerHttpSurfaces(http: FastifyInstance, deps: HttpSurfacesDeps): Promise<void> {
  const { gateway, log, shutdownSignal } = deps;
  const cors = registerCors(http, gateway.cors.origins);
  deps.onConfigChange((change) => {
    if (change.sections.includes('gateway')) cors.setOrigins(change.config.gateway.cors.origins);
  });
  registerHealthRoutes(http, deps);
  await registerRpcRoute(http, { ...deps, log: log.child({ component: 'rpc' }) });
  await registerOpenAiRoutes(http, { ...deps, log: log.child({ component: 'openai' }) });
  // A /v1 path the router refuses (malformed %-encoding) is answered in OpenAI's envelope, as the plugin's own errors are.
  useErrorEnvelope(http, '/v1', (error, _request, reply) => {
    prepareErrorReply(reply, error);
    return reply.code(OPENAI_ERRORS[error.kind].status).send(openAiErrorBody(error));
  });
  // Routes cannot be added once the server listens, so the route is always there and answers as an unknown route
  // while gateway.webhook is absent.
  const webhook = () => deps.live().webhook;
  await registerWebhookRoute(http, { ...deps, webhook, log: log.child({ component: 'webhook' }), shutdownSignal });
  if (gateway.web.enabled) {
    await registerRestRoutes(http, {
      ...deps,
      isWebhookEnabled: () => webhook() !== undefined,
      replayEvents: gateway.sseReplayEvents,
      log: log.child({ component: 'rest' }),
    });
    await registerDashboard(http, { webDistPath: gateway.webDistPath ?? deps.defaultWebDistPath });
  }
}
