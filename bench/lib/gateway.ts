// Starts an in-process gateway on a free loopback port in a temporary data directory, for benchmarks.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../src/app.js';
import { generateSecret, packageInfo, resolvePaths, validateConfig, type ConfigInput } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';

export interface BenchGateway {
  app: App;
  /** http://127.0.0.1:<port> */
  url: string;
  host: string;
  port: number;
  /** Secret of the bench token (scopes `*`), for `Authorization: Bearer`. */
  token: string;
  /** Closes the gateway and deletes its data directory. */
  close(): Promise<void>;
}

export interface StartGatewayOptions {
  /** Merged over the bench defaults; `gateway` keys are merged one level deep. */
  config?: ConfigInput;
}

export const BENCH_TOKEN_ID = 'bench';

/**
 * The gateway's defaults, except: loopback and port 0, one `*` token, and an HTTP rate limit far above any
 * rate a benchmark reaches (the limiter still runs on every request it covers).
 */
export async function startGateway({ config = {} }: StartGatewayOptions = {}): Promise<BenchGateway> {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-gateway-bench-'));
  const token = generateSecret();
  try {
    const gatewayConfig = validateConfig(
      {
        ...config,
        gateway: {
          host: '127.0.0.1',
          port: 0,
          tokens: [{ id: BENCH_TOKEN_ID, secret: token, scopes: ['*'] }],
          rateLimit: { windowMs: 60_000, maxRequests: 1_000_000_000 },
          ...config.gateway,
        },
      },
      'bench config',
    );
    const info = packageInfo();
    const app = await createApp({
      config: gatewayConfig,
      paths: resolvePaths({ dataDir }, {}),
      log: createLogger({ level: 'silent' }),
      version: info.version,
      defaultWebDistPath: null,
    });
    const { host, port, url } = await app.listen();
    return {
      app,
      url,
      host,
      port,
      token,
      async close() {
        await app.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
