// Starts a real gateway on an ephemeral port over a throwaway data dir, with one known token per scope.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { createApp, type App, type AppOptions } from '../../src/app.js';
import {
  resolvePaths,
  validateConfig,
  type ConfigInput,
  type GatewayConfig,
  type GatewayPaths,
} from '../../src/config/index.js';
import { createLogger, type Logger } from '../../src/obs/logger.js';

type GatewayInput = NonNullable<ConfigInput['gateway']>;
type TokenInput = NonNullable<GatewayInput['tokens']>[number];

export type TokenName = 'admin' | 'rpc' | 'adminOnly' | 'mcpClient' | 'api' | 'ws';

/** The secret of each token the harness configures; every one is at least 32 characters. */
export const TOKENS: Readonly<Record<TokenName, string>> = {
  /** id `admin`, scopes ['*'] */
  admin: 'admin-secret-0123456789abcdefghijklmnop',
  /** id `rpc-client`, scopes ['rpc'] */
  rpc: 'rpc-secret-0123456789abcdefghijklmnopqrs',
  /** id `admin-only`, scopes ['admin'] */
  adminOnly: 'admin-only-secret-0123456789abcdefghijk',
  /** id `mcp`, scopes ['mcp-client'] */
  mcpClient: 'mcp-client-secret-0123456789abcdefghijk',
  /** id `api-client`, scopes ['api'] */
  api: 'api-secret-0123456789abcdefghijklmnopqrs',
  /** id `ws-client`, scopes ['ws'] */
  ws: 'ws-secret-0123456789abcdefghijklmnopqrst',
};

/** The client id (token id) behind each harness token. */
export const TOKEN_IDS: Record<TokenName, string> = {
  admin: 'admin',
  rpc: 'rpc-client',
  adminOnly: 'admin-only',
  mcpClient: 'mcp',
  api: 'api-client',
  ws: 'ws-client',
};

export const HARNESS_TOKENS: TokenInput[] = [
  { id: TOKEN_IDS.admin, secret: TOKENS.admin, scopes: ['*'] },
  { id: TOKEN_IDS.rpc, secret: TOKENS.rpc, scopes: ['rpc'] },
  { id: TOKEN_IDS.adminOnly, secret: TOKENS.adminOnly, scopes: ['admin'] },
  { id: TOKEN_IDS.mcpClient, secret: TOKENS.mcpClient, scopes: ['mcp-client'] },
  { id: TOKEN_IDS.api, secret: TOKENS.api, scopes: ['api'] },
  { id: TOKEN_IDS.ws, secret: TOKENS.ws, scopes: ['ws'] },
];

/** The harness tokens with the rpc token given `tenants` (config gateway.tokens[].tenants), for `gateway.tokens`. */
export function tokensWithRpcTenants(tenants: string[]): TokenInput[] {
  return HARNESS_TOKENS.map((token) => (token.id === TOKEN_IDS.rpc ? { ...token, tenants } : token));
}

export interface HarnessOptions {
  /** Merged over the harness defaults (port 0, the harness tokens); `tokens` here replaces the harness tokens. */
  gateway?: Partial<GatewayInput>;
  /** Appended to the harness tokens (or to `gateway.tokens` when that is given). */
  extraTokens?: TokenInput[];
  providers?: ConfigInput['providers'];
  agents?: ConfigInput['agents'];
  embeddings?: ConfigInput['embeddings'];
  memory?: ConfigInput['memory'];
  audio?: ConfigInput['audio'];
  media?: ConfigInput['media'];
  browser?: ConfigInput['browser'];
  mcp?: ConfigInput['mcp'];
  orchestrate?: ConfigInput['orchestrate'];
  skills?: ConfigInput['skills'];
  learning?: ConfigInput['learning'];
  /** Chat-platform connections (src/channels). */
  channels?: ConfigInput['channels'];
  terminal?: ConfigInput['terminal'];
  otel?: ConfigInput['otel'];
  /** Spend and token limits enforced before each model call (src/budgets). */
  budgets?: ConfigInput['budgets'];
  /** Prometheus /metrics and the observability:metrics snapshot (src/metrics). */
  metrics?: ConfigInput['metrics'];
  obs?: ConfigInput['obs'];
  runs?: ConfigInput['runs'];
  /** The audit log's settings (audit.reads). */
  audit?: ConfigInput['audit'];
  /** A2A: exposed agents and remote A2A agents (src/a2a). */
  a2a?: ConfigInput['a2a'];
  /** Session idle expiry and the lifecycle sweep (src/sessions). */
  sessions?: ConfigInput['sessions'];
  /** Where durable state lives; SQLite in the data dir when absent. */
  storage?: ConfigInput['storage'];
  /** `{kind: 'redis', url}` joins the gateway to other replicas through that Redis. */
  coordination?: ConfigInput['coordination'];
  /**
   * A SQLite file another harness gateway also uses, standing in for the shared database of a replicated
   * deployment (the data dir, config and its history stay this gateway's own).
   */
  sharedDatabasePath?: string;
  /** Extra createApp options (clock, restart hook, later dependencies); config, paths and log are the harness's. */
  app?: Partial<Omit<AppOptions, 'config' | 'paths' | 'log'>>;
  /** The app's logger; silent by default. */
  log?: Logger;
  /** Skips app.listen(); `url` and `wsUrl` are then empty. For tests that only use app.http.inject(). */
  listen?: boolean;
}

export interface Harness {
  app: App;
  /** The validated config the app was built with; also written to `paths.configPath`. */
  config: GatewayConfig;
  paths: GatewayPaths;
  dataDir: string;
  /** `http(s)://127.0.0.1:<port>` */
  url: string;
  /** `ws(s)://127.0.0.1:<port>/ws` */
  wsUrl: string;
  tokens: typeof TOKENS;
  /** Closes the app (idempotent) and removes the data dir. */
  close(): Promise<void>;
}

/** The config document the harness writes to config.yaml (before defaults are applied). */
export function harnessDocument(options: HarnessOptions = {}): ConfigInput {
  const { tokens = HARNESS_TOKENS, ...gateway } = options.gateway ?? {};
  return {
    gateway: { port: 0, ...gateway, tokens: [...tokens, ...(options.extraTokens ?? [])] },
    ...(options.providers === undefined ? {} : { providers: options.providers }),
    ...(options.agents === undefined ? {} : { agents: options.agents }),
    ...(options.embeddings === undefined ? {} : { embeddings: options.embeddings }),
    ...(options.memory === undefined ? {} : { memory: options.memory }),
    ...(options.audio === undefined ? {} : { audio: options.audio }),
    ...(options.media === undefined ? {} : { media: options.media }),
    ...(options.browser === undefined ? {} : { browser: options.browser }),
    ...(options.mcp === undefined ? {} : { mcp: options.mcp }),
    ...(options.orchestrate === undefined ? {} : { orchestrate: options.orchestrate }),
    ...(options.skills === undefined ? {} : { skills: options.skills }),
    ...(options.learning === undefined ? {} : { learning: options.learning }),
    ...(options.channels === undefined ? {} : { channels: options.channels }),
    ...(options.terminal === undefined ? {} : { terminal: options.terminal }),
    ...(options.otel === undefined ? {} : { otel: options.otel }),
    ...(options.budgets === undefined ? {} : { budgets: options.budgets }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.obs === undefined ? {} : { obs: options.obs }),
    ...(options.runs === undefined ? {} : { runs: options.runs }),
    ...(options.audit === undefined ? {} : { audit: options.audit }),
    ...(options.a2a === undefined ? {} : { a2a: options.a2a }),
    ...(options.sessions === undefined ? {} : { sessions: options.sessions }),
    ...(options.storage === undefined ? {} : { storage: options.storage }),
    ...(options.coordination === undefined ? {} : { coordination: options.coordination }),
  };
}

/** Builds the validated config the harness would use, without starting anything. */
export function harnessConfig(options: HarnessOptions = {}): GatewayConfig {
  return validateConfig(harnessDocument(options), 'test harness');
}

export async function startGateway(options: HarnessOptions = {}): Promise<Harness> {
  const config = harnessConfig(options);
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-test-'));
  const ownPaths = resolvePaths({ dataDir }, {});
  const paths =
    options.sharedDatabasePath === undefined ? ownPaths : { ...ownPaths, databasePath: options.sharedDatabasePath };
  let app: App;
  try {
    // The running config is also on disk, as `agent-gateway start` would have it, for code that reads the file.
    await writeFile(paths.configPath, stringifyYaml(harnessDocument(options)), { mode: 0o600 });
    app = await createApp({
      version: '0.0.0-test',
      defaultWebDistPath: null,
      ...options.app,
      config,
      paths,
      log: options.log ?? createLogger({ level: 'silent' }),
    });
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  let url = '';
  let wsUrl = '';
  if (options.listen !== false) {
    try {
      ({ url } = await app.listen());
    } catch (error) {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
      throw error;
    }
    wsUrl = `${url.replace(/^http/, 'ws')}/ws`;
  }
  return {
    app,
    config,
    paths,
    dataDir,
    url,
    wsUrl,
    tokens: TOKENS,
    async close() {
      try {
        await app.close();
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
