// `agent-gateway start`: first-run setup, load config, listen, restart on request, graceful shutdown on signals.
import { createApp, type App } from '../app.js';
import {
  describeMissingReference,
  ensureConfigFile,
  loadConfigFile,
  packageInfo,
  validateConfig,
  type FirstRunResult,
  type GatewayConfig,
  type GatewayPaths,
} from '../config/index.js';
import { detectModels, probeUrlsOf } from './detect-models.js';
import { describeFindings, describePlan, planDetected, NOTHING_CONFIGURED, sectionsOf } from './detected-config.js';
import { createCliLogger, resolveLogSetup, type LogFlags } from './log-options.js';
import { CliError, type CliIo } from './output.js';

export interface StartOptions {
  paths: GatewayPaths;
  isConfigExplicit: boolean;
  port?: number;
  host?: string;
  log?: LogFlags;
  /** `--probe-urls`; else AGENT_GATEWAY_PROBE_URLS or the default ports. */
  probeUrls?: string;
}

async function loadWithOverrides(options: StartOptions, io: CliIo): Promise<GatewayConfig> {
  const { config, missingEnv } = await loadConfigFile(options.paths.configPath, io.env, options.paths.secretsPath);
  for (const name of missingEnv)
    io.err(`warning: ${describeMissingReference(name)} (used in ${options.paths.configPath})`);
  const overridden = {
    ...config,
    gateway: {
      ...config.gateway,
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.host === undefined ? {} : { host: options.host }),
    },
  };
  return validateConfig(overridden, 'command-line options');
}

export function printFirstRun(io: CliIo, configPath: string, secret: string, url: string): void {
  io.out(`Created ${configPath} with an admin token. It is shown only this once:`);
  io.out('');
  io.out(`  ${secret}`);
  io.out('');
  io.out('Try it:');
  io.out(`  curl -H 'Authorization: Bearer ${secret}' -d '{"jsonrpc":"2.0","method":"system.ping","id":1}' ${url}/rpc`);
  io.out('');
}

/**
 * Creates the config when there is none, with the providers, default agent and embeddings found (saying what it found,
 * and once written, what it wrote).
 */
export async function ensureConfigWithModels(
  paths: GatewayPaths,
  probeFlag: string | undefined,
  io: CliIo,
): Promise<FirstRunResult> {
  let written = '';
  const result = await ensureConfigFile(paths.configPath, paths.secretsPath, async () => {
    // Read only when it is used: a bad list stops a first start, never a start over an existing config.
    const probeUrls = probeUrlsOf(probeFlag, io.env);
    const findings = await detectModels(io.env, probeUrls);
    for (const line of describeFindings(findings, probeUrls)) io.out(line);
    const plan = planDetected(findings, NOTHING_CONFIGURED);
    written = describePlan(plan);
    return sectionsOf(plan);
  });
  if (result.created && written !== '') io.out(`Wrote ${written} to ${paths.configPath}`);
  return result;
}

export async function startCommand(options: StartOptions, io: CliIo): Promise<void> {
  // Checked before anything is created, so a typo is a usage error and not a half-done first run.
  const logSetup = resolveLogSetup(options.log ?? {}, io.env, process.stdout.isTTY === true);
  const firstRun = options.isConfigExplicit
    ? { created: false }
    : await ensureConfigWithModels(options.paths, options.probeUrls, io);
  const log = await createCliLogger(logSetup);
  const pkg = packageInfo();
  let config = await loadWithOverrides(options, io);
  if (!config.gateway.enabled) throw new CliError('gateway.enabled is false in the config; nothing to start');

  let app: App;
  const build = async (): Promise<App> =>
    createApp({
      config,
      paths: options.paths,
      log,
      env: io.env,
      version: pkg.version,
      defaultWebDistPath: pkg.webDistPath,
      requestRestart: restart,
    });

  async function restart(): Promise<void> {
    const next = await loadWithOverrides(options, io).catch((error: unknown) => {
      log.error({ err: error }, 'restart refused: the config file is invalid; keeping the running gateway');
      return undefined;
    });
    if (next === undefined) return;
    log.info('restarting');
    await app.close();
    config = next;
    try {
      app = await build();
      await app.listen();
    } catch (error) {
      // The old gateway is closed already; a process left without a listener would look alive to its supervisor.
      log.fatal({ err: error }, 'restart failed; exiting');
      log.flush();
      process.exit(1);
    }
    log.info('restarted');
  }

  let isShuttingDown = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (isShuttingDown) {
      log.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    isShuttingDown = true;
    log.info({ signal }, 'shutting down');
    app.close().then(
      () => {
        log.info('stopped');
        log.flush();
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };

  app = await build();
  const { url } = await app.listen();
  // The handlers are in place before anything says the gateway listens: a supervisor (or a test) that signals as soon
  // as it reads that line gets the graceful shutdown, not the default of dying at once.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (firstRun.created && firstRun.adminSecret !== undefined)
    printFirstRun(io, options.paths.configPath, firstRun.adminSecret, url);
  log.info({ url, dataDir: options.paths.dataDir }, `Agent Gateway listening on ${url}`);
}
