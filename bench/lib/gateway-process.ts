// A gateway as its own node process (`agent-gateway start` from src/ under tsx) with a given config, over the bench's fake LLM.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSecret, type ConfigInput } from '../../src/config/index.js';
import { BENCH_AGENT, BENCH_MODEL, BENCH_PROVIDER } from './fake-llm.js';
import { BENCH_TOKEN_ID } from './gateway.js';
import { freePort } from '../../test/support/free-port.js';
import { startAndTime, stopProcess } from './process-start.js';

const CLI_SOURCE = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
/** tsx's loader by absolute URL, so the child finds it whatever its working directory. */
const TSX_LOADER = import.meta.resolve('tsx');

export interface GatewayProcess {
  pid: number;
  host: string;
  port: number;
  /** Stops the process (SIGTERM, then SIGKILL) and deletes its home. */
  close(): Promise<void>;
}

export interface GatewayProcessOptions {
  /** `<fake LLM url>/v1`, the only provider. */
  llmBaseUrl: string;
  /** Secret of the `*` bench token. */
  token: string;
  /** Merged over the bench config (storage, coordination). */
  extra?: ConfigInput;
}

/** The caller's environment without node flags meant for this process, a fresh home, and warnings only in the log. */
function childEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AGENT_GATEWAY_HOME: home, LOG_LEVEL: 'warn' };
  delete env.NODE_OPTIONS;
  delete env.AGENT_GATEWAY_TOKEN;
  return env;
}

export const newBenchToken = generateSecret;

/** With GATEWAY_CPU_PROFILE_DIR set, a bench's gateway process writes its CPU profiles (every thread) there on exit. */
function profileFlags(): string[] {
  const dir = process.env.GATEWAY_CPU_PROFILE_DIR;
  return dir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

/**
 * Writes config.yaml (JSON is YAML) in a fresh AGENT_GATEWAY_HOME: the bench token, an HTTP rate limit far above
 * any rate reached (the limiter still runs on every request), the fake LLM as the one provider of the `default`
 * agent; then starts `agent-gateway start` on a free port and waits for its first good GET /health.
 */
export async function startGatewayProcess({
  llmBaseUrl,
  token,
  extra = {},
}: GatewayProcessOptions): Promise<GatewayProcess> {
  const home = await mkdtemp(join(tmpdir(), 'agent-gateway-replica-'));
  try {
    const config: ConfigInput = {
      gateway: {
        host: '127.0.0.1',
        tokens: [{ id: BENCH_TOKEN_ID, secret: token, scopes: ['*'] }],
        rateLimit: { windowMs: 60_000, maxRequests: 1_000_000_000 },
      },
      providers: {
        [BENCH_PROVIDER]: { type: 'openai-compatible', baseUrl: llmBaseUrl, models: [{ id: BENCH_MODEL }] },
      },
      agents: { [BENCH_AGENT]: { name: 'Bench', provider: BENCH_PROVIDER, model: BENCH_MODEL } },
      ...extra,
    };
    await writeFile(join(home, 'config.yaml'), `${JSON.stringify(config, null, 2)}\n`);
    const port = await freePort();
    const started = await startAndTime(
      [...profileFlags(), '--import', TSX_LOADER, CLI_SOURCE, 'start', '--port', String(port)],
      childEnv(home),
      port,
    );
    return {
      pid: started.pid,
      host: '127.0.0.1',
      port,
      async close() {
        try {
          await stopProcess(started.child);
        } finally {
          await rm(home, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await rm(home, { recursive: true, force: true });
    throw error;
  }
}
