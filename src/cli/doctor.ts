// `agent-gateway doctor`: checks the config, storage, tokens, providers and the listen address, one line each.
import { createEventBus } from '../events/index.js';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { openStore } from '../app-store.js';
import {
  describeMissingReference,
  loadConfigFile,
  ConfigError,
  type GatewayConfig,
  type GatewayPaths,
} from '../config/index.js';
import { createLogger } from '../obs/index.js';
import { createModelRouter } from '../providers/index.js';
import { POSTGRES_SCHEMA_VERSION } from '../store/postgres/index.js';
import { openDatabase } from '../store/sqlite/index.js';
import type { CliIo } from './output.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';
export interface CheckResult {
  status: CheckStatus;
  name: string;
  detail: string;
}

/** Where a PostgreSQL URL points, without the user, password or options it may carry. */
function postgresLocation(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return 'postgres (unparseable URL)';
  }
}

/** Opened the way the gateway opens it (missing migrations applied unless `storage.migrate` is false), then read once. */
async function checkPostgresStorage(config: GatewayConfig, paths: GatewayPaths, url: string): Promise<CheckResult> {
  const where = postgresLocation(url);
  try {
    const store = await openStore({ config, paths, log: createLogger({ level: 'silent' }) });
    try {
      const tokens = await store.tokens.list();
      return {
        status: 'ok',
        name: 'storage',
        detail: `${where} (schema version ${POSTGRES_SCHEMA_VERSION}, ${tokens.length} stored token(s))`,
      };
    } finally {
      await store.close();
    }
  } catch (error) {
    return {
      status: 'fail',
      name: 'storage',
      detail: `${where}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function checkStorage(config: GatewayConfig, paths: GatewayPaths): CheckResult | Promise<CheckResult> {
  if (config.storage.kind === 'postgres') return checkPostgresStorage(config, paths, config.storage.url);
  try {
    const db = openDatabase({ path: paths.databasePath });
    try {
      const mode = db.pragma('journal_mode', { simple: true });
      const integrity = db.pragma('integrity_check', { simple: true });
      if (integrity !== 'ok')
        return {
          status: 'fail',
          name: 'storage',
          detail: `${paths.databasePath}: integrity check says ${String(integrity)}`,
        };
      return {
        status: 'ok',
        name: 'storage',
        detail: `${paths.databasePath} (journal_mode=${String(mode)}, migrations applied)`,
      };
    } finally {
      db.close();
    }
  } catch (error) {
    return {
      status: 'fail',
      name: 'storage',
      detail: `${paths.databasePath}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function checkTokens(config: GatewayConfig): CheckResult {
  const count = config.gateway.tokens.length;
  if (count === 0)
    return {
      status: 'warn',
      name: 'tokens',
      detail: 'no tokens in the config; only tokens created with `agent-gateway token create` can connect',
    };
  return { status: 'ok', name: 'tokens', detail: `${count} configured token(s)` };
}

/** One tiny real round trip per provider (its first model), so a wrong URL or key shows up before a user's turn does. */
async function checkProviders(config: GatewayConfig): Promise<CheckResult[]> {
  const names = Object.keys(config.providers);
  if (names.length === 0) {
    return [
      {
        status: 'warn',
        name: 'providers',
        detail:
          'no LLM provider configured: agent turns will fail until you add one under `providers:` (see README, "Add a provider, an agent and embeddings")',
      },
    ];
  }
  const log = createLogger({ level: 'silent' });
  const router = createModelRouter({ config: config.providers, events: createEventBus({ now: Date.now, log }), log });
  return Promise.all(
    names.map(async (name): Promise<CheckResult> => {
      const provider = config.providers[name];
      const model = provider?.models[0];
      if (provider === undefined || model === undefined)
        return { status: 'warn', name: `provider ${name}`, detail: 'no models listed; nothing to test' };
      const outcome = await router.test(
        { provider: name, modelId: model.id },
        AbortSignal.timeout(PROVIDER_PROBE_TIMEOUT_MS),
      );
      return outcome.ok
        ? {
            status: 'ok',
            name: `provider ${name}`,
            detail: `${provider.type} ${name}/${model.id} answered in ${outcome.latencyMs} ms`,
          }
        : {
            status: 'fail',
            name: `provider ${name}`,
            detail: `${provider.type} ${name}/${model.id}: ${outcome.error ?? 'failed'}`,
          };
    }),
  );
}

const PROVIDER_PROBE_TIMEOUT_MS = 15_000;

function checkTls(config: GatewayConfig): CheckResult | undefined {
  const { tls } = config.gateway;
  const files = [tls.certPath, tls.keyPath, tls.caPath].filter((path): path is string => path !== null);
  if (files.length === 0) return undefined;
  for (const file of files) {
    try {
      accessSync(file, constants.R_OK);
    } catch {
      return { status: 'fail', name: 'tls', detail: `${file} is not readable` };
    }
  }
  return {
    status: 'ok',
    name: 'tls',
    detail: `${tls.requireClientCert ? 'mutual TLS' : 'TLS'} with ${files.length} file(s)`,
  };
}

function checkListen(config: GatewayConfig): Promise<CheckResult> {
  const { host, port } = config.gateway;
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const detail =
        error.code === 'EADDRINUSE'
          ? `${host}:${port} is in use (a gateway may already be running)`
          : `${host}:${port}: ${error.message}`;
      resolve({ status: 'warn', name: 'listen', detail });
    });
    probe.listen({ host, port }, () =>
      probe.close(() => resolve({ status: 'ok', name: 'listen', detail: `${host}:${port} is free` })),
    );
  });
}

export async function runChecks(paths: GatewayPaths, env: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  let config: GatewayConfig;
  const results: CheckResult[] = [];
  try {
    const loaded = await loadConfigFile(paths.configPath, env, paths.secretsPath);
    config = loaded.config;
    results.push({ status: 'ok', name: 'config', detail: paths.configPath });
    for (const name of loaded.missingEnv)
      results.push({ status: 'warn', name: 'config', detail: describeMissingReference(name) });
  } catch (error) {
    const detail = error instanceof ConfigError ? error.message : String(error);
    return [{ status: 'fail', name: 'config', detail }];
  }
  results.push(await checkStorage(config, paths), checkTokens(config), ...(await checkProviders(config)));
  const tls = checkTls(config);
  if (tls !== undefined) results.push(tls);
  results.push(await checkListen(config));
  return results;
}

export async function doctorCommand(paths: GatewayPaths, io: CliIo): Promise<boolean> {
  const results = await runChecks(paths, io.env);
  for (const result of results) io.out(`${result.status.padEnd(4)} ${result.name}: ${result.detail}`);
  return results.every((result) => result.status !== 'fail');
}
