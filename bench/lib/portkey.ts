// Portkey's open-source AI gateway (@portkey-ai/gateway, its built Node server) as its own process over the bench fake LLM,
// and the gateway as its own process over another: the two sides of the chat bench's "vs Portkey" rows.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isRecord } from './bench.js';
import { startBenchLlm, type BenchLlm } from './fake-llm.js';
import { newBenchToken, startGatewayProcess } from './gateway-process.js';
import { startAndTime, stopProcess } from './process-start.js';
import { freePort } from '../../test/support/free-port.js';

/** The published version the rows are named after; package.json pins exactly this one. */
export const PORTKEY_VERSION = '1.15.2';

/** A server process over its own fake LLM; closing stops the process, then the fake LLM. */
export interface ProcessOverLlm {
  pid: number;
  host: string;
  port: number;
  llm: BenchLlm;
  close(): Promise<void>;
}

export interface PortkeyOverLlm extends ProcessOverLlm {
  /** The headers that route a request through Portkey to the fake LLM, as an OpenAI-compatible provider. */
  headers: Record<string, string>;
}

export interface GatewayProcessOverLlm extends ProcessOverLlm {
  /** Secret of the bench token. */
  token: string;
}

/** The package's `bin` (build/start-server.js): the server `npx @portkey-ai/gateway` starts. */
function portkeyEntry(): string {
  const manifestPath = fileURLToPath(import.meta.resolve('@portkey-ai/gateway/package.json'));
  const manifest: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
  if (!isRecord(manifest) || manifest.version !== PORTKEY_VERSION || typeof manifest.bin !== 'string')
    throw new Error(`expected @portkey-ai/gateway ${PORTKEY_VERSION} with one bin in ${manifestPath}`);
  return join(dirname(manifestPath), manifest.bin);
}

/**
 * The caller's environment without node flags meant for this process, and without the variables Portkey reads that
 * would change its path (a Redis cache, an outbound proxy, a custom trusted-host list that could drop 127.0.0.1).
 */
function portkeyEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'NODE_OPTIONS',
    'PORT',
    'REDIS_CONNECTION_STRING',
    'HTTP_PROXY',
    'HTTPS_PROXY',
    'TRUSTED_CUSTOM_HOSTS',
  ])
    delete env[name];
  return env;
}

async function withLlm<Server>(start: (llm: BenchLlm) => Promise<Server>): Promise<Server> {
  const llm = await startBenchLlm();
  try {
    return await start(llm);
  } catch (error) {
    await llm.close();
    throw error;
  }
}

/**
 * A fresh fake LLM and `node <@portkey-ai/gateway bin> --headless --port=<free port>` (no UI routes, default
 * settings otherwise), ready once its `GET /` answers 200. Portkey listens on every interface (its server takes
 * no host option); the bench only connects to 127.0.0.1, which is on its default list of trusted custom hosts.
 */
export async function startPortkeyOverLlm(): Promise<PortkeyOverLlm> {
  return withLlm(async (llm) => {
    const port = await freePort();
    const started = await startAndTime([portkeyEntry(), '--headless', `--port=${port}`], portkeyEnv(), port, '/');
    return {
      pid: started.pid,
      host: '127.0.0.1',
      port,
      llm,
      headers: { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': llm.baseUrl },
      async close() {
        try {
          await stopProcess(started.child);
        } finally {
          await llm.close();
        }
      },
    };
  });
}

/** A fresh fake LLM and a gateway process over it (lib/gateway-process.ts): `agent-gateway start` from src/ under tsx. */
export async function startGatewayProcessOverLlm(): Promise<GatewayProcessOverLlm> {
  return withLlm(async (llm) => {
    const token = newBenchToken();
    const gateway = await startGatewayProcess({ llmBaseUrl: llm.baseUrl, token });
    return {
      pid: gateway.pid,
      host: gateway.host,
      port: gateway.port,
      llm,
      token,
      async close() {
        try {
          await gateway.close();
        } finally {
          await llm.close();
        }
      },
    };
  });
}
