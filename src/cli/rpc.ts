// `agent-gateway rpc METHOD [JSON-params]`: calls a gateway over POST /rpc and prints the result (no local config needed with --url and --token).
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { loadConfigFile, type GatewayConfig, type GatewayPaths } from '../config/index.js';
import { CliError, type CliIo } from './output.js';

export interface RpcCommandOptions {
  paths: GatewayPaths;
  method: string | undefined;
  paramsJson: string | undefined;
  token: string | undefined;
  url: string | undefined;
}

/** The first config token that reaches admin methods, so `rpc` works out of the box on the gateway's host. */
function adminSecret(config: GatewayConfig): string | undefined {
  return config.gateway.tokens.find(
    (token) => token.scopes.length === 0 || token.scopes.includes('*') || token.scopes.includes('admin'),
  )?.secret;
}

function defaultUrl(config: GatewayConfig): string {
  const { host, port, tls } = config.gateway;
  const reachableHost =
    host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `${tls.certPath === null ? 'http' : 'https'}://${reachableHost}:${port}`;
}

/**
 * The certificate authority to trust for the gateway's HTTPS: the configured client CA, else the server
 * certificate itself (self-signed). Verification stays on, so the bearer token never goes to an impostor.
 */
function trustedCa(config: GatewayConfig): Buffer | undefined {
  const path = config.gateway.tls.caPath ?? config.gateway.tls.certPath;
  return path === null ? undefined : readFileSync(path);
}

/**
 * The local config, which supplies the default URL and the admin token. Without --url there is nothing to call
 * without it; with --url alone a missing file only means no token (asked for by name), not a config error.
 */
async function localConfig(options: RpcCommandOptions, io: CliIo): Promise<GatewayConfig | undefined> {
  if (options.url !== undefined && !existsSync(options.paths.configPath)) return undefined;
  return (await loadConfigFile(options.paths.configPath, io.env, options.paths.secretsPath)).config;
}

/** With --url and a token the config only adds the CA of a self-signed HTTPS gateway; an absent or broken one is skipped. */
async function localConfigIfAny(paths: GatewayPaths, io: CliIo): Promise<GatewayConfig | undefined> {
  if (!existsSync(paths.configPath)) return undefined;
  return loadConfigFile(paths.configPath, io.env, paths.secretsPath).then(
    (loaded) => loaded.config,
    () => undefined,
  );
}

function post(
  url: URL,
  body: string,
  token: string,
  ca: Buffer | undefined,
): Promise<{ status: number; text: string }> {
  const isHttps = url.protocol === 'https:';
  const send = isHttps ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        ...(isHttps && ca !== undefined ? { ca } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function rpcCommand(options: RpcCommandOptions, io: CliIo): Promise<void> {
  if (options.method === undefined)
    throw new CliError('usage: agent-gateway rpc METHOD [JSON-params] [--token T] [--url URL]', 2);
  let params: unknown = {};
  if (options.paramsJson !== undefined) {
    try {
      params = JSON.parse(options.paramsJson);
    } catch {
      throw new CliError(`params must be JSON, got: ${options.paramsJson}`, 2);
    }
  }
  const given = options.token ?? io.env.AGENT_GATEWAY_TOKEN;
  // With both a URL and a token nothing is needed from this machine, so a remote gateway is reachable from anywhere.
  const config =
    options.url !== undefined && given !== undefined
      ? await localConfigIfAny(options.paths, io)
      : await localConfig(options, io);
  const token = given ?? (config === undefined ? undefined : adminSecret(config));
  if (token === undefined)
    throw new CliError('no token: pass --token, set AGENT_GATEWAY_TOKEN, or add an admin token to the config');
  const url = new URL('/rpc', options.url ?? (config === undefined ? undefined : defaultUrl(config)));
  const body = JSON.stringify({ jsonrpc: '2.0', method: options.method, params, id: 1 });
  const ca = url.protocol === 'https:' && config !== undefined ? trustedCa(config) : undefined;
  const response = await post(url, body, token, ca).catch((error: unknown) => {
    throw new CliError(
      `cannot reach the gateway at ${url.origin}: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.text);
  } catch {
    throw new CliError(`HTTP ${response.status}: ${response.text}`);
  }
  if (typeof parsed === 'object' && parsed !== null && 'result' in parsed) {
    io.out(JSON.stringify(parsed.result, null, 2));
    return;
  }
  const error = typeof parsed === 'object' && parsed !== null && 'error' in parsed ? parsed.error : parsed;
  if (typeof error === 'object' && error !== null && 'code' in error && 'message' in error) {
    // A JSON-RPC error (numeric code) or the REST envelope of an HTTP refusal (string code).
    throw new CliError(
      `error ${String(error.code)}: ${String(error.message)}${response.status === 200 ? '' : ` (HTTP ${response.status})`}`,
    );
  }
  throw new CliError(`HTTP ${response.status}: ${JSON.stringify(error)}`);
}
