#!/usr/bin/env node
// The `agent-gateway` command line: start, init, token, rpc, doctor, migrate.
import { parseArgs } from 'node:util';
import { ConfigError, ensureConfigFile, packageInfo, resolvePaths } from './config/index.js';
import { CliError, processIo, type CliIo } from './cli/output.js';
import { isGatewayError } from './errors.js';
import { rpcCommand } from './cli/rpc.js';
import { DEFAULT_PROBE_URLS } from './cli/detect-models.js';
import { printFirstRun, startCommand } from './cli/start.js';
import { tokenCommand } from './cli/token.js';

const USAGE = `usage: agent-gateway <command> [options]
       agent-gateway --version | -v

commands:
  start [--config FILE] [--data-dir DIR] [--port N] [--host H]   run the gateway (default command)
        [--log-level LEVEL] [--log-format FORMAT]
  init [--data-dir DIR] [--detect]                                create the data dir and config.yaml; --detect: add
                                                                  the providers found (API keys, local servers)
  token create --id NAME [--scopes rpc,admin] | list | revoke --id NAME | rotate --id NAME
  rpc METHOD [JSON-params] [--token T] [--url URL]                call a running gateway (with both, no local config needed)
  doctor                                                          check config, storage, providers
  migrate                                                         create or upgrade the storage schema (SQLite file or PostgreSQL)

logs (start):
  --log-level fatal|error|warn|info|debug|trace|silent   or LOG_LEVEL; default info
  --log-format pretty|json                               or LOG_FORMAT; default pretty on a terminal, json otherwise

first start and init --detect look for OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY and probe local servers:
  --probe-urls URL,...   or AGENT_GATEWAY_PROBE_URLS (loopback only; "" probes none); default
                         ${DEFAULT_PROBE_URLS.join(',')}`;

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`--port must be an integer from 0 to 65535, got ${text}`, 2);
  return port;
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'log-level': { type: 'string' },
      'log-format': { type: 'string' },
      detect: { type: 'boolean' },
      'probe-urls': { type: 'string' },
      id: { type: 'string' },
      scopes: { type: 'string' },
      token: { type: 'string' },
      url: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.version === true) {
    io.out(packageInfo().version);
    return 0;
  }
  const [command = 'start', ...rest] = positionals;
  if (values.help === true || command === 'help') {
    io.out(USAGE);
    return 0;
  }
  const paths = resolvePaths({ dataDir: values['data-dir'], configPath: values.config }, io.env);
  switch (command) {
    case 'start':
      await startCommand(
        {
          paths,
          isConfigExplicit: values.config !== undefined,
          port: parsePort(values.port),
          host: values.host,
          log: { level: values['log-level'], format: values['log-format'] },
          probeUrls: values['probe-urls'],
        },
        io,
      );
      return -1;
    case 'init': {
      if (values.detect === true) {
        await (await import('./cli/init-detect.js')).initDetectCommand({ paths, probeUrls: values['probe-urls'] }, io);
        return 0;
      }
      const result = await ensureConfigFile(paths.configPath, paths.secretsPath);
      if (result.created && result.adminSecret !== undefined)
        printFirstRun(io, paths.configPath, result.adminSecret, 'http://127.0.0.1:4766');
      else io.out(`${paths.configPath} already exists; left unchanged.`);
      return 0;
    }
    case 'token':
      await tokenCommand({ paths, action: rest[0], id: values.id ?? rest[1], scopes: values.scopes }, io);
      return 0;
    case 'rpc':
      await rpcCommand({ paths, method: rest[0], paramsJson: rest[1], token: values.token, url: values.url }, io);
      return 0;
    case 'doctor':
      // doctor and migrate load the PostgreSQL driver; `start` of a single-node gateway never does.
      return (await (await import('./cli/doctor.js')).doctorCommand(paths, io)) ? 0 : 1;
    case 'migrate':
      await (await import('./cli/migrate.js')).migrateCommand(paths, io);
      return 0;
    default:
      throw new CliError(`unknown command '${command}'\n${USAGE}`, 2);
  }
}

const io = processIo(process.env);
main(process.argv.slice(2), io).then(
  (code) => {
    // -1: a server is running and owns the process lifetime.
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    // A GatewayError is a failure the gateway explains (a storage schema newer than this build …): its message is enough.
    if (error instanceof CliError || error instanceof ConfigError || isGatewayError(error)) {
      io.err(error.message);
      process.exitCode = error instanceof CliError ? error.exitCode : 1;
      return;
    }
    if (error instanceof Error && 'code' in error && (error.code === 'EADDRINUSE' || error.code === 'EACCES')) {
      io.err(`cannot listen: ${error.message}`);
      process.exitCode = 1;
      return;
    }
    if (error instanceof TypeError && 'code' in error && error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      io.err(`${error.message}\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    io.err(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  },
);
