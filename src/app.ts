// Composition root: builds every service once, wires them together, and owns startup and shutdown order.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { builtinTools, createAgentRegistry, createAgentsModule, createToolRegistry, type ManagedAgentRegistry } from './agents/index.js';
import type { CapabilityModule } from './capability.js';
import { createConfigStore, createGitHistory, securePrivateDataDir, type ConfigStore, type GatewayConfig, type GatewayPaths } from './config/index.js';
import { createLocalCoordination } from './coordination/index.js';
import { registerDashboard, registerHealthRoutes, registerRpcRoute, registerWebhookRoute } from './http/index.js';
import { registerOpenAiRoutes } from './http/openai/index.js';
import { registerRestRoutes } from './http/rest/index.js';
import {
  createEventBus,
  createObsModule,
  createRecorder,
  recordBootPosture,
  recordRunsOrphaned,
  type EventBus,
  type Observability,
} from './obs/index.js';
import { createEmbedder, createHashingEmbedder, createModelRouter, type GatewayModelRouter } from './providers/index.js';
import { createDispatcher, createRegistry, type MethodDefinition, type MethodRegistry } from './rpc/index.js';
import { configMethods } from './rpc/methods/config.js';
import { gatewayMethods } from './rpc/methods/gateway.js';
import { modelMethods } from './rpc/methods/models.js';
import { systemMethods } from './rpc/methods/system.js';
import { tokenMethods } from './rpc/methods/tokens.js';
import { createAuthenticator, createHttpServer, createRequestAuth, createTokenService, type TokenService } from './server/index.js';
import { createRunsModule } from './runs/index.js';
import { createSessionsModule, type SessionService } from './sessions/index.js';
import {
  createSqliteAuditPort, createSqliteEvidencePort, createSqliteObsPort, createSqliteResponsePort, createSqliteRunPort, createSqliteSessionPort, createSqliteTokenPort, openDatabase,
} from './store/sqlite/index.js';
import { agentTurnMethods, createHookRegistry, createTurnLoop, createTurnService, DEFAULT_TURN_LIMITS, type TurnRunner } from './turns/index.js';
import { createWsGateway, type WsGateway } from './ws/index.js';

/** How long shutdown waits for open HTTP connections before cutting them. */
const SHUTDOWN_GRACE_MS = 2000;

export type AppState = 'created' | 'listening' | 'closing' | 'closed';

export interface AppOptions {
  config: GatewayConfig;
  paths: GatewayPaths;
  log: Logger;
  version: string;
  /** Dashboard files used when gateway.webDistPath is not set (the package's own build). */
  defaultWebDistPath: string | null;
  /** For ${ENV} substitution when the config is rewritten; only the CLI reads process.env. */
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  /** Called by gateway.restart; the CLI reloads the config and builds a new App. */
  requestRestart?: () => Promise<void>;
}

export interface App {
  readonly http: FastifyInstance;
  readonly ws: WsGateway;
  readonly registry: MethodRegistry;
  readonly tokens: TokenService;
  readonly events: EventBus;
  readonly configStore: ConfigStore;
  readonly agents: ManagedAgentRegistry;
  readonly router: GatewayModelRouter;
  readonly sessions: SessionService;
  readonly observability: Observability;
  /** The turn runner every surface uses: serialised per session, usage tracked. */
  readonly runner: TurnRunner;
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
  const events = createEventBus({ now, log });

  const tightened = await securePrivateDataDir(paths.dataDir);
  if (tightened.length > 0) log.warn({ paths: tightened }, 'data dir entries were open to other users; tightened to owner only');

  const env = options.env ?? {};
  const configStore = await createConfigStore({
    configPath: paths.configPath,
    secretsPath: paths.secretsPath,
    history: createGitHistory({ dataDir: paths.dataDir, configPath: paths.configPath, env }),
    env,
    log: log.child({ component: 'config' }),
    events,
    initialDocument: config,
    // Host and port are bound once at listen; a change to them applies at the next restart.
    overrides: (next) => ({ ...next, gateway: { ...next.gateway, host: gateway.host, port: gateway.port } }),
  });

  // Built before anything that holds resources, since an unusable embeddings section throws here.
  const embedder = createEmbedder({ embeddings: config.embeddings, providers: configStore.get().providers, log: log.child({ component: 'embeddings' }) });

  const db = openDatabase({ path: paths.databasePath });
  const tokenStore = createSqliteTokenPort(db);
  const authenticator = createAuthenticator({ configTokens: gateway.tokens, store: tokenStore });
  const tokens = createTokenService({ store: tokenStore, configTokens: gateway.tokens, now, configLoadedAt: new Date(startedAt).toISOString() });
  const evidence = createSqliteEvidencePort(db);
  const recorder = createRecorder({ port: evidence, log: log.child({ component: 'evidence' }) });

  const router = createModelRouter({ config: configStore.get().providers, events, log: log.child({ component: 'providers' }), now });
  const stopRouterReload = configStore.onChange((change) => {
    if (change.sections.includes('providers')) router.reload(change.config.providers);
    // Tokens apply at once; the other gateway.* keys (address, TLS, limits) apply at the next gateway.restart.
    if (change.sections.includes('gateway')) {
      authenticator.replaceConfigTokens(change.config.gateway.tokens);
      tokens.replaceConfigTokens(change.config.gateway.tokens);
    }
  });
  if (router.providers().length === 0) log.warn('no LLM provider configured: agent turns will end with an error until one is added under `providers:`');
  const obsModule = createObsModule({
    store: { audit: createSqliteAuditPort(db), evidence, obs: createSqliteObsPort(db) },
    events,
    recorder,
    now,
    newId: randomUUID,
    priceOf: (provider, model) => router.entry({ provider, modelId: model })?.cost,
    hasDurableRuns: true,
    log: log.child({ component: 'obs' }),
  });
  const { observability } = obsModule;
  const agents = createAgentRegistry({ configStore, events, log: log.child({ component: 'agents' }) });

  const sessionStore = createSqliteSessionPort(db);
  const coordination = createLocalCoordination();
  const { locks } = coordination;
  const tools = createToolRegistry(builtinTools({ now }));
  const hooks = createHookRegistry([], log.child({ component: 'hooks' }));
  const turnLog = log.child({ component: 'turns' });
  const loop = createTurnLoop({ router, tools, events, recorder, delivery: observability.delivery, hooks, limits: DEFAULT_TURN_LIMITS, append: (key, messages) => sessionStore.append(key, messages, now()), log: turnLog, now });
  const turns = createTurnService({ agents, store: sessionStore, locks, loop, hooks, events, now, log: turnLog });
  const runner: TurnRunner = turns;

  let ws: WsGateway | undefined;
  const sessionsModule = createSessionsModule({ store: sessionStore, turns, router, agents, locks, now, log: log.child({ component: 'sessions' }) });
  const sessions = sessionsModule.sessions;
  const runsModule = createRunsModule({
    store: sessionStore,
    runs: createSqliteRunPort(db),
    turns,
    agents,
    instances: coordination.instances,
    events,
    notify: (clientId, method, params) => ws?.notify(clientId, method, params) ?? 0,
    now,
    newId: randomUUID,
    log: log.child({ component: 'runs' }),
    onOrphaned: (orphaned) => {
      if (orphaned > 0) log.warn({ orphaned }, 'sub-agent runs left unfinished by the previous process are marked orphaned');
      recordRunsOrphaned(observability.signals, orphaned);
    },
  });
  const agentsModule = createAgentsModule({ agents, router, embeddings: () => configStore.get().embeddings, builtinEmbedder: createHashingEmbedder() });
  const modules: CapabilityModule[] = [obsModule, sessionsModule, runsModule, agentsModule];
  for (const module of modules) {
    tools.register(module.tools ?? []);
    hooks.register(module);
  }
  for (const [agentId, agent] of Object.entries(configStore.get().agents)) {
    const unknown = agent.tools.filter((name) => !tools.has(name));
    if (unknown.length > 0) log.warn({ agentId, tools: unknown, available: tools.names() }, 'agent names tools this gateway does not provide; they are left out');
  }
  for (const module of modules) await module.start?.();

  let registry: MethodRegistry | undefined;
  const methods: MethodDefinition[] = [
    ...systemMethods({ now, version, registry: () => registry ?? createRegistry([]) }),
    ...gatewayMethods({
      now,
      startedAt,
      configPaths: [paths.configPath],
      sections: () => Object.keys(configStore.get()),
      restart: options.requestRestart,
    }),
    ...tokenMethods({ tokens }),
    ...agentTurnMethods({ runner }),
    ...modelMethods({ router }),
    ...configMethods({ config: configStore }),
    ...modules.flatMap((module) => module.methods ?? []),
  ];
  registry = createRegistry(methods);
  const dispatcher = createDispatcher({
    registry,
    maxBatchSize: gateway.maxBatchSize,
    audit: (call) =>
      observability.audit.record({
        kind: 'rpc.call',
        classification: call.scope,
        action: call.method,
        actor: call.clientId,
        outcome: call.outcome,
        severity: call.outcome === 'denied' ? 'warning' : call.outcome === 'error' ? 'error' : 'info',
        traceId: call.traceId,
        refs: { transport: call.transport, ...(call.errorKind === undefined ? {} : { errorKind: call.errorKind }) },
      }),
  });

  const auth = createRequestAuth(authenticator);
  // Reading TLS files can fail on a bad path; the store is released so a restart can reopen it.
  const http = await createHttpServer({ gateway, log, auth }).catch(async (error: unknown) => {
    for (const module of [...modules].reverse()) await module.stop?.();
    agents.close();
    await recorder.close();
    db.close();
    throw error;
  });
  registerHealthRoutes(http, { now });
  await registerRpcRoute(http, { dispatcher, auth, log: log.child({ component: 'rpc' }), shutdownSignal: shutdown.signal });
  await registerOpenAiRoutes(http, {
    auth,
    runner,
    agents,
    router,
    embedder,
    responses: createSqliteResponsePort(db),
    log: log.child({ component: 'openai' }),
    now,
    shutdownSignal: shutdown.signal,
  });
  if (gateway.webhook !== undefined) {
    await registerWebhookRoute(http, {
      webhook: gateway.webhook,
      runner,
      notifyAll: (method, params) => ws?.notify(null, method, params),
      log: log.child({ component: 'webhook' }),
      now,
      shutdownSignal: shutdown.signal,
    });
  }
  if (gateway.web.enabled) {
    await registerRestRoutes(http, {
      auth,
      runner,
      agents,
      router,
      sessions: sessionStore,
      events,
      channelActivity: observability.channels,
      log: log.child({ component: 'rest' }),
      wsConnections: () => ws?.connectionCount() ?? 0,
      isWebhookEnabled: gateway.webhook !== undefined,
      shutdownSignal: shutdown.signal,
    });
    await registerDashboard(http, { webDistPath: gateway.webDistPath ?? options.defaultWebDistPath });
  }

  const wsGateway = createWsGateway({ gateway, authenticator, dispatcher, log: log.child({ component: 'ws' }), now });
  ws = wsGateway;
  // Deferred a tick, so a client that rotates its own token over its socket still receives the new secret.
  const stopRetiredWatch = tokens.onSecretRetired((clientId) => setImmediate(() => wsGateway.disconnectClient(clientId)));
  http.server.on('upgrade', (request, socket, head) => wsGateway.handleUpgrade(request, socket, head));

  let closing: Promise<void> | undefined;
  let bootPosture: Promise<void> | undefined;
  /** Asks each provider for the window it serves, after listen so startup never waits on an upstream. */
  const recordPosture = (): Promise<void> =>
    router
      .servedWindows(shutdown.signal)
      .then((entries) => {
        if (!shutdown.signal.aborted) recordBootPosture(observability.signals, { bootId: randomUUID(), entries });
      })
      .catch((error: unknown) => log.warn({ err: error }, 'the boot posture could not be recorded'));
  const app: App = {
    http,
    ws: wsGateway,
    registry,
    tokens,
    events,
    configStore,
    agents,
    router,
    sessions,
    observability,
    runner,
    state: () => state,
    async listen() {
      await http.listen({ host: gateway.host, port: gateway.port });
      state = 'listening';
      bootPosture ??= recordPosture();
      const address = http.server.address();
      const port = typeof address === 'object' && address !== null ? address.port : gateway.port;
      const scheme = gateway.tls.certPath === null ? 'http' : 'https';
      const hostForUrl = gateway.host.includes(':') ? `[${gateway.host}]` : gateway.host;
      return { host: gateway.host, port, url: `${scheme}://${hostForUrl}:${port}` };
    },
    close() {
      closing ??= closeInOrder();
      return closing;
    },
  };

  /** DESIGN §1: stop accepting → close sockets with 1001 → abort in-flight work → flush and close stores. */
  async function closeInOrder(): Promise<void> {
    state = 'closing';
    // Fastify stops listening at once and then waits for the requests in flight, which the abort below ends.
    const httpClosed = http.close();
    await wsGateway.close();
    shutdown.abort();
    await runsModule.stop();
    // Keep-alive connections that never sent a request would hold close() open; they are cut after a grace period.
    const forceClose = setTimeout(() => http.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    forceClose.unref();
    try {
      await httpClosed;
    } finally {
      clearTimeout(forceClose);
    }
    // Aborted with the shutdown signal above; waited for so its row never lands in a closed store.
    await bootPosture;
    stopRouterReload();
    stopRetiredWatch();
    for (const module of [...modules].reverse()) if (module !== runsModule) await module.stop?.();
    agents.close();
    await recorder.close();
    db.close();
    state = 'closed';
  }
  return app;
}
