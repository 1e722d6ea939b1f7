// A started HTTP server with the /v1 and /api routes over the real turn loop, router and SQLite stores, and the
// scripted fake LLM as the only provider (the process boundary).
import { createEventBus, type EventBus } from '../../../src/events/index.js';
import { randomUUID } from 'node:crypto';
import type { AgentRegistry } from '../../../src/agents/types.js';
import type { ToolDefinition } from '../../../src/agents/index.js';
import { providerConfigSchema } from '../../../src/config/index.js';
import { registerOpenAiRoutes } from '../../../src/http/openai/index.js';
import { registerRestRoutes } from '../../../src/http/rest/index.js';
import { createLogger } from '../../../src/obs/logger.js';
import { createObservability } from '../../../src/obs/index.js';
import { createRecorder } from '../../../src/obs/recorder.js';
import { createEmbedder, createModelRouter } from '../../../src/providers/index.js';
import { createAuthenticator, createHttpServer, createRequestAuth } from '../../../src/server/index.js';
import {
  createSqliteAuditPort,
  createSqliteEvidencePort,
  createSqliteObsPort,
  createSqliteResponsePort,
  createSqliteRetentionPort,
  createSqliteRunPort,
  createSqliteSessionPort,
  createSqliteTokenPort,
  openDatabase,
  type SqliteDatabase,
} from '../../../src/store/sqlite/index.js';
import { createLocalInstances } from '../../../src/coordination/index.js';
import { createRunControl } from '../../../src/runs/index.js';
import type { FastifyInstance } from 'fastify';
import { harnessConfig, TOKENS } from '../../support/gateway-harness.js';
import { staticAgents } from '../../sessions/service-fixture.js';
import { createTurnServiceFixture } from '../../turns/turn-fixture.js';

type AgentInput = Parameters<typeof staticAgents>[0][string];

export interface RouteFixtureOptions {
  /** The fake LLM's base URL (`<url>/v1`). */
  llmBaseUrl: string;
  /** Models of the `local` provider; default ['small', 'large']. */
  models?: string[];
  agents?: Record<string, AgentInput>;
  hasEmbeddings?: boolean;
  rateLimit?: { maxRequests: number; windowMs: number };
  keepAliveMs?: number;
  /** More providers beside `local`, as config.yaml's `providers:` entries. */
  extraProviders?: Record<string, unknown>;
  /** Tools the agents may name in `tools:`; default none. */
  tools?: readonly ToolDefinition[];
  /** `openai.storeTranscripts` at start; tests may change `settings.storeTranscripts` later. Default false. */
  storeTranscripts?: boolean;
  /** The /v1 routes' clock (response created_at and retention); default Date.now. */
  now?: () => number;
  /** `responses.ttlDays` at start; tests may change `settings.responseTtlDays` later. Default 30. */
  responseTtlDays?: number;
  /** How often the /v1 surface purges expired responses; default the gateway's hourly sweep. */
  responseSweepIntervalMs?: number;
}

export interface RouteFixture {
  url: string;
  http: FastifyInstance;
  events: EventBus;
  db: SqliteDatabase;
  agents: AgentRegistry;
  tokens: typeof TOKENS;
  /** Read by the /v1 routes on every request, as the gateway reads its config. */
  settings: { storeTranscripts: boolean; responseTtlDays: number };
  /** Writes the recorder's queued evidence rows. */
  flushEvidence(): Promise<void>;
  close(): Promise<void>;
}

export async function startRouteFixture(options: RouteFixtureOptions): Promise<RouteFixture> {
  const log = createLogger({ level: 'silent' });
  const config = harnessConfig({ gateway: options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit } });
  const db = openDatabase({ path: ':memory:' });
  const events = createEventBus({ now: Date.now, log });
  const providers = {
    local: providerConfigSchema.parse({
      type: 'openai-compatible',
      baseUrl: options.llmBaseUrl,
      models: (options.models ?? ['small', 'large']).map((id) => ({ id })),
    }),
    ...Object.fromEntries(
      Object.entries(options.extraProviders ?? {}).map(([name, provider]) => [
        name,
        providerConfigSchema.parse(provider),
      ]),
    ),
  };
  const router = createModelRouter({ config: providers, events, log });
  const agents = staticAgents(
    options.agents ?? { default: { name: 'Assistant', provider: 'local', model: 'small', maxSteps: 3 } },
  );
  const sessions = createSqliteSessionPort(db);
  const evidence = createSqliteEvidencePort(db);
  const recorder = createRecorder({ port: evidence });
  const observability = createObservability({
    store: {
      audit: createSqliteAuditPort(db),
      evidence,
      obs: createSqliteObsPort(db),
      retention: createSqliteRetentionPort(db),
    },
    events,
    recorder,
    now: Date.now,
    newId: randomUUID,
  });
  const runner = createTurnServiceFixture({
    agents,
    router,
    store: sessions,
    recorder,
    events,
    ...(options.tools === undefined ? {} : { tools: options.tools }),
  });
  const embedder =
    options.hasEmbeddings === true
      ? createEmbedder({ embeddings: { provider: 'local', model: 'embed-small' }, providers, log })
      : undefined;
  const auth = createRequestAuth(
    createAuthenticator({ configTokens: config.gateway.tokens, store: createSqliteTokenPort(db) }),
  );
  const shutdown = new AbortController();
  const runs = createSqliteRunPort(db);
  const runControl = createRunControl({
    runs,
    events,
    instances: createLocalInstances(),
    now: Date.now,
    log,
    runHeartbeatMs: 30_000,
  });
  const http = await createHttpServer({ gateway: config.gateway, log, auth });
  const keepAlive = options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs };
  const settings = {
    storeTranscripts: options.storeTranscripts ?? false,
    responseTtlDays: options.responseTtlDays ?? 30,
  };
  const sweep =
    options.responseSweepIntervalMs === undefined ? {} : { responseSweepIntervalMs: options.responseSweepIntervalMs };
  await registerOpenAiRoutes(http, {
    auth,
    runner,
    agents,
    router,
    embedder: () => embedder,
    responses: createSqliteResponsePort(db),
    backgroundRuns: { control: runControl, store: runs },
    storeTranscripts: () => settings.storeTranscripts,
    log,
    shutdownSignal: shutdown.signal,
    ...keepAlive,
    responseTtlDays: () => settings.responseTtlDays,
    ...sweep,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  await registerRestRoutes(http, {
    auth,
    runner,
    agents,
    router,
    sessions,
    events,
    channelActivity: observability.channels,
    log,
    wsConnections: () => 0,
    shutdownSignal: shutdown.signal,
    ...keepAlive,
  });
  await http.listen({ host: '127.0.0.1', port: 0 });
  const address = http.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    http,
    events,
    db,
    agents,
    tokens: TOKENS,
    settings,
    flushEvidence: () => recorder.flush(),
    async close() {
      shutdown.abort();
      runControl.close();
      // A client may hold a connection it never sent a request on (undici opens spares); it would hold close() up.
      http.server.closeAllConnections();
      await http.close();
      await observability.close();
      await recorder.close();
      // As StorePorts.close() at shutdown: queued session writes reach the file before it closes.
      sessions.flush();
      db.close();
    },
  };
}
