// Composition root: builds the core once (config, store, bus, auth, models), has app-modules.ts build the capability
// modules on it, starts them, mounts the transports, and owns startup and shutdown order.
import type { MethodRegistry } from './rpc/types.js';
import { createEventBus } from './events/index.js';
import { createModules } from './app-modules.js';
import { channelTenants } from './channels/index.js';
import { openConfigStore, openStore } from './app-store.js';
import {
  applyLiveConfig,
  closeInOrder,
  createShutdownController,
  releaseEach,
  type App,
  type AppOptions,
  type AppState,
} from './app-lifecycle.js';
import { securePrivateDataDir } from './config/index.js';
import { createCoordination, createPeerBridge } from './coordination/index.js';
import { registerHttpSurfaces } from './http/index.js';
import { createRecorder } from './obs/index.js';
import { createLiveEmbedder, createModelRouter } from './providers/index.js';
import { createDispatcher, createRegistry } from './rpc/index.js';
import { startTracing } from './tracing/index.js';
import {
  createAuthenticator,
  createHttpServer,
  createRequestAuth,
  createTokenDirectory,
  createTokenService,
  forgettingOnWrite,
} from './server/index.js';
import { createWsGateway, type WsGateway } from './ws/index.js';

export type { App, AppOptions } from './app-lifecycle.js';
export async function createApp(options: AppOptions): Promise<App> {
  const {
    config,
    config: { gateway: boot },
    paths,
    log,
  } = options;
  const now = options.now ?? Date.now;
  const startedAt = now();
  const shutdown = createShutdownController();
  const child = (component: string) => log.child({ component });
  let state: AppState = 'created';
  let ws: WsGateway | undefined;

  const tightened = await securePrivateDataDir(paths.dataDir);
  if (tightened.length > 0)
    log.warn({ paths: tightened }, 'data dir entries were open to other users; tightened to owner only');
  const events = createEventBus({ now, log });
  const coordination = await createCoordination({
    config: config.coordination,
    events,
    replayEvents: boot.sseReplayEvents,
    log: child('coordination'),
  }); // first: without Redis nothing else opens
  const env = options.env ?? {};
  const configStore = await openConfigStore({
    config,
    paths,
    env,
    log: child('config'),
    events,
    replicaId: coordination.instances.currentId,
  }).catch(async (error: unknown) => {
    await coordination.close();
    throw error;
  });
  // Under storage: postgres the database's config, not the file's. Host and port are the start's (the CLI's --host and
  // --port win over the file); like every key in RESTART_KEYS a change to them applies at the next restart.
  const started = configStore.get();
  const { gateway, embeddings } = started;
  const live = () => configStore.get().gateway;
  // An unusable embeddings section or a store that cannot open (PostgreSQL unreachable or newer) fails the start; the
  // config store's watcher or listener and Redis must not keep the process.
  const abandon = async (error: unknown): Promise<never> => {
    await configStore.close();
    await coordination.close();
    throw error;
  };
  const embedder = await Promise.resolve()
    .then(() => createLiveEmbedder({ embeddings, providers: configStore.get().providers, log: child('embeddings') }))
    .catch(abandon);
  const store = await openStore({ config, paths, log: child('store') }).catch(abandon);
  const authenticator = createAuthenticator({ configTokens: gateway.tokens, store: store.tokens });
  const auth = createRequestAuth(authenticator);
  const tokenDirectory = createTokenDirectory({
    configTokens: () => configStore.get().gateway.tokens,
    systemTenants: (id) => channelTenants(configStore.get().channels, id),
    store: store.tokens,
    now,
  });
  const tokens = createTokenService({
    store: forgettingOnWrite(store.tokens, tokenDirectory),
    configTokens: gateway.tokens,
    now,
    configLoadedAt: new Date(startedAt).toISOString(),
  });
  const recorder = createRecorder({ port: store.evidence, log: child('evidence') });
  // With otel.endpoint unset this is undefined and the OpenTelemetry SDK is never loaded.
  const tracing = await startTracing({
    config: started.otel,
    log: child('tracing'),
    providerType: (providerId) => configStore.get().providers[providerId]?.type,
  }).catch(abandon);
  const router = createModelRouter({
    config: configStore.get().providers,
    events,
    log: child('providers'),
    now,
    traceparent: tracing?.upstreamTraceparent,
  });
  let httpServer: { maxConnections: number } | undefined;
  applyLiveConfig(configStore, {
    router,
    authenticator,
    tokens,
    embedder,
    server: () => httpServer,
    log: child('config'),
  });
  const peers = createPeerBridge({
    coordination,
    notifyHere: (clientId, method, params) => ws?.notify(clientId, method, params) ?? 0,
    notifyAdminsHere: (method, params) => ws?.notifyAdmins(method, params) ?? 0,
    disconnectHere: (clientId) => ws?.disconnectClient(clientId),
    onSecretRetired: tokens.onSecretRetired,
    log: child('coordination'),
  });
  let registry: MethodRegistry | undefined;
  const { modules, obs, agents, turns, runs, media, channels } = createModules({
    options,
    now,
    startedAt,
    log,
    child,
    configStore,
    started,
    store,
    events,
    coordination,
    recorder,
    router,
    embedder,
    auth,
    tokens,
    tokenDirectory,
    peers,
    currentRegistry: () => registry,
    tracing,
  });
  const { observability } = obs;
  for (const module of modules) await module.start?.();
  registry = createRegistry(modules.flatMap((module) => module.methods ?? []));
  const dispatcher = createDispatcher({
    registry,
    maxBatchSize: () => live().maxBatchSize,
    audit: (call) => observability.audit.recordCall(call),
    isTraced: tracing !== undefined,
    auditReads: () => configStore.get().audit.reads,
  });

  const stopModules = () =>
    releaseEach(
      [
        ['config store', () => configStore.close()],
        ...[...modules].reverse().map((module) => [`module ${module.name}`, () => module.stop?.()] as const),
        ['tracing', () => tracing?.shutdown()],
        ['evidence recorder', () => recorder.close()],
        ['peer bridge', () => peers.stop()],
        ['coordination', () => coordination.close()],
        ['store', () => store.close()],
      ],
      log,
    );
  // Reading TLS files can fail on a bad path; the store is released so a restart can reopen it.
  const http = await createHttpServer({
    gateway,
    live,
    log,
    auth,
    rateCounter: coordination.rateCounter,
    now,
    isTraced: tracing !== undefined,
  }).catch(async (error: unknown) => {
    await stopModules();
    throw error;
  });
  httpServer = http.server;
  for (const module of modules) if (module.routes !== undefined) await http.register(module.routes);
  await registerHttpSurfaces(http, {
    gateway,
    live,
    onConfigChange: configStore.onChange,
    auth,
    dispatcher,
    runner: turns,
    agents,
    router,
    embedder: embedder.current,
    responses: store.responses,
    sessions: store.sessions,
    events,
    responseTtlDays: () => configStore.get().responses.ttlDays,
    maxBackgroundPerToken: () => configStore.get().responses.maxBackgroundPerToken,
    backgroundRuns: { control: runs.runControl, store: store.runs },
    storeTranscripts: () => configStore.get().openai.storeTranscripts,
    channelActivity: observability.channels,
    wsConnections: () => ws?.connectionCount() ?? 0,
    chatConnections: () => channels.statuses(),
    notifyAdmins: (method, params) => peers.notifyAdmins(method, params),
    runControl: runs.runControl,
    eventFeed: coordination.eventFeed,
    defaultWebDistPath: options.defaultWebDistPath,
    shutdownSignal: shutdown.signal,
    log,
    now,
    dependencies: { storage: async () => store.ping?.(), coordination: async () => coordination.ping?.() },
  });
  const wsGateway = createWsGateway({
    gateway,
    authenticator,
    dispatcher,
    log: child('ws'),
    now,
    allowedOrigins: () => configStore.get().gateway.cors.origins,
  });
  ws = wsGateway;
  // Deferred a tick, so a client that rotates its own token over its socket still receives the new secret.
  const stopRetiredWatch = tokens.onSecretRetired((clientId) =>
    setImmediate(() => wsGateway.disconnectClient(clientId)),
  );
  http.server.on('upgrade', (request, socket, head) => wsGateway.handleUpgrade(request, socket, head));

  let closing: Promise<void> | undefined;
  let bootPosture: Promise<void> | undefined;
  return {
    http,
    ws: wsGateway,
    registry,
    tokens,
    events,
    observability,
    media: media.media,
    state: () => state,
    async listen() {
      await http.listen({ host: boot.host, port: boot.port });
      state = 'listening';
      bootPosture ??= obs.recordBootPosture((signal) => router.servedWindows(signal), shutdown.signal);
      const address = http.server.address();
      const port = typeof address === 'object' && address !== null ? address.port : boot.port;
      const hostForUrl = boot.host.includes(':') ? `[${boot.host}]` : boot.host;
      return {
        host: boot.host,
        port,
        url: `${gateway.tls.certPath === null ? 'http' : 'https'}://${hostForUrl}:${port}`,
      };
    },
    close() {
      const release = async () => {
        stopRetiredWatch();
        await stopModules();
      };
      const setState = (next: AppState) => (state = next);
      closing ??= closeInOrder({
        http,
        ws: wsGateway,
        shutdown,
        stopRuns: () => runs.stop(),
        waitForBootPosture: () => bootPosture,
        setState,
        release,
      });
      return closing;
    },
  };
}
