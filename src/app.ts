// Composition root: builds every service once, wires them together, and owns startup and shutdown order.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayConfig, GatewayPaths } from './config/index.js';
import { registerDashboard, registerHealthRoutes, registerRpcRoute } from './http/index.js';
import { createDispatcher, createRegistry, type MethodDefinition, type MethodRegistry } from './rpc/index.js';
import { gatewayMethods } from './rpc/methods/gateway.js';
import { systemMethods } from './rpc/methods/system.js';
import { tokenMethods } from './rpc/methods/tokens.js';
import {
  createAuthenticator,
  createHttpServer,
  createRequestAuth,
  createTokenService,
  type TokenService,
} from './server/index.js';
import { createSqliteTokenStore, openDatabase } from './store/index.js';
import { createWsGateway, type WsGateway } from './ws/index.js';

export type AppState = 'created' | 'listening' | 'closing' | 'closed';

export interface AppOptions {
  config: GatewayConfig;
  paths: GatewayPaths;
  log: Logger;
  version: string;
  /** Dashboard files used when gateway.webDistPath is not set (the package's own build). */
  defaultWebDistPath: string | null;
  now?: () => number;
  /** Called by gateway.restart; the CLI reloads the config and builds a new App. */
  requestRestart?: () => Promise<void>;
}

export interface App {
  readonly http: FastifyInstance;
  readonly ws: WsGateway;
  readonly registry: MethodRegistry;
  readonly tokens: TokenService;
  state(): AppState;
  /** Starts listening; resolves with the bound address (port 0 picks a free port). */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /** Stop accepting → close sockets with 1001 → abort in-flight work → flush and close stores. */
  close(): Promise<void>;
}

export async function createApp(options: AppOptions): Promise<App> {
  const { config, paths, log, version } = options;
  const now = options.now ?? Date.now;
  const startedAt = now();
  const gateway = config.gateway;
  let state: AppState = 'created';
  const shutdown = new AbortController();

  const db = openDatabase({ path: paths.databasePath });
  const tokenStore = createSqliteTokenStore(db);
  const authenticator = createAuthenticator({ configTokens: gateway.tokens, store: tokenStore });
  const tokens = createTokenService({
    store: tokenStore,
    configTokens: gateway.tokens,
    now,
    configLoadedAt: new Date(startedAt).toISOString(),
  });

  let registry: MethodRegistry | undefined;
  const methods: MethodDefinition[] = [
    ...systemMethods({ now, version, registry: () => registry ?? createRegistry([]) }),
    ...gatewayMethods({
      now,
      startedAt,
      configPaths: [paths.configPath],
      sections: () => Object.keys(config),
      restart: async () => {
        if (options.requestRestart === undefined) throw new Error('restart is not available in this process');
        await options.requestRestart();
      },
    }),
    ...tokenMethods({ tokens }),
  ];
  registry = createRegistry(methods);
  const dispatcher = createDispatcher({ registry, maxBatchSize: gateway.maxBatchSize });

  const auth = createRequestAuth(authenticator);
  const http = await createHttpServer({ gateway, log, auth });
  registerHealthRoutes(http, { now });
  await registerRpcRoute(http, { dispatcher, auth, log: log.child({ component: 'rpc' }), shutdownSignal: shutdown.signal });
  if (gateway.web.enabled) {
    await registerDashboard(http, { webDistPath: gateway.webDistPath ?? options.defaultWebDistPath });
  }

  const ws = createWsGateway({ gateway, authenticator, dispatcher, log: log.child({ component: 'ws' }), now });
  http.server.on('upgrade', (request, socket, head) => ws.handleUpgrade(request, socket, head));

  const app: App = {
    http,
    ws,
    registry,
    tokens,
    state: () => state,
    async listen() {
      await http.listen({ host: gateway.host, port: gateway.port });
      state = 'listening';
      const address = http.server.address();
      const port = typeof address === 'object' && address !== null ? address.port : gateway.port;
      const scheme = gateway.tls.certPath === null ? 'http' : 'https';
      const hostForUrl = gateway.host.includes(':') ? `[${gateway.host}]` : gateway.host;
      return { host: gateway.host, port, url: `${scheme}://${hostForUrl}:${port}` };
    },
    async close() {
      if (state === 'closing' || state === 'closed') return;
      state = 'closing';
      await ws.close();
      shutdown.abort();
      await http.close();
      db.close();
      state = 'closed';
    },
  };
  return app;
}
