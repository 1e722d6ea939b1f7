// What an App is (options, state, the handle the CLI and tests hold), how it applies live config changes, and the order it shuts down in (DESIGN §1).
import type { MethodRegistry } from './rpc/types.js';
import type { EventBus } from './events/index.js';
import { setMaxListeners } from 'node:events';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { changedRestartKeys, type ConfigStore, type GatewayConfig, type GatewayPaths } from './config/index.js';
import type { Observability } from './obs/index.js';
import type { MediaService } from './media/index.js';
import type { GatewayModelRouter, LiveEmbedder } from './providers/index.js';
import type { Authenticator, TokenService } from './server/index.js';
import type { WsGateway } from './ws/index.js';

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
  readonly observability: Observability;
  /** The media store other modules save into (browser screenshots, PDFs, audio); also what tests save through. */
  readonly media: MediaService;
  state(): AppState;
  /** Starts listening; resolves with the bound address (port 0 picks a free port). */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /** Stop accepting → close sockets with 1001 → abort in-flight work → flush and close stores. */
  close(): Promise<void>;
}

export interface ShutdownParts {
  http: FastifyInstance;
  ws: Pick<WsGateway, 'close'>;
  /** Aborted once sockets are closed: in-flight turns, streams and model calls stop. */
  shutdown: AbortController;
  /** Sub-agent runs end as soon as shutdown starts, so HTTP close does not wait on them. */
  stopRuns: () => Promise<void>;
  /** The boot posture write, if one started; its row must never land in a closed store. */
  waitForBootPosture: () => Promise<void> | undefined;
  setState: (state: AppState) => void;
  /** Stops the modules in reverse start order, flushes the recorders and closes the store. */
  release: () => Promise<void>;
}

/** Aborted when the app closes. Every request in flight listens to it (server/sse.ts requestSignal): no listener limit. */
export function createShutdownController(): AbortController {
  const shutdown = new AbortController();
  setMaxListeners(0, shutdown.signal);
  return shutdown;
}

/**
 * Runs each release step in order, whatever the ones before it did: a store that cannot flush (PostgreSQL gone)
 * must not leave Redis connected, timers running or child processes alive. Failures are logged, never thrown, so a
 * shutdown always completes.
 */
export async function releaseEach(
  steps: readonly (readonly [name: string, run: () => Promise<void> | void])[],
  log: Logger,
): Promise<void> {
  for (const [name, run] of steps) {
    try {
      await run();
    } catch (error) {
      log.error({ err: error, step: name }, 'a shutdown step failed; the rest still run');
    }
  }
}

/** DESIGN §1: stop accepting → close sockets with 1001 → abort in-flight work → flush and close stores. */
export async function closeInOrder({
  http,
  ws,
  shutdown,
  stopRuns,
  waitForBootPosture,
  setState,
  release,
}: ShutdownParts): Promise<void> {
  setState('closing');
  // Fastify stops listening at once and then waits for the requests in flight, which the abort below ends.
  const httpClosed = http.close();
  await ws.close();
  shutdown.abort();
  await stopRuns();
  // Keep-alive connections that never sent a request would hold close() open; they are cut after a grace period.
  const forceClose = setTimeout(() => http.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  forceClose.unref();
  try {
    await httpClosed;
  } finally {
    clearTimeout(forceClose);
  }
  await waitForBootPosture();
  await release();
  setState('closed');
}

export interface LiveConfigTargets {
  router: Pick<GatewayModelRouter, 'reload'>;
  authenticator: Pick<Authenticator, 'replaceConfigTokens'>;
  tokens: Pick<TokenService, 'replaceConfigTokens'>;
  /** Rebuilt when `embeddings:` (or the provider it names) changes. */
  embedder: Pick<LiveEmbedder, 'reload'>;
  /** The HTTP server once it exists: Node reads maxConnections at each new socket. */
  server: () => { maxConnections: number } | undefined;
  log: Logger;
}

/**
 * Applies a changed config to what reads it live: providers and embeddings reload, config tokens replace the old ones
 * at once, the connection cap follows gateway.maxConnections. Everything else under gateway.* (rate limit, batch size,
 * connection guard, webhook, CORS) is read per request; the keys read only at start (RESTART_KEYS) are logged here.
 */
export function applyLiveConfig(
  configStore: Pick<ConfigStore, 'onChange'>,
  { router, authenticator, tokens, embedder, server, log }: LiveConfigTargets,
): void {
  configStore.onChange((change) => {
    if (change.sections.includes('providers')) router.reload(change.config.providers);
    if (change.sections.includes('providers') || change.sections.includes('embeddings')) embedder.reload(change.config);
    if (change.sections.includes('gateway')) {
      authenticator.replaceConfigTokens(change.config.gateway.tokens);
      tokens.replaceConfigTokens(change.config.gateway.tokens);
      const http = server();
      if (http !== undefined) http.maxConnections = change.config.gateway.maxConnections;
    }
    const keys = changedRestartKeys(change.previous, change.config);
    if (keys.length > 0)
      log.warn({ keys, change: change.message }, 'config change applies at restart: these keys are read only at start');
  });
}
