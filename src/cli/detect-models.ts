// Finds the user's models for a first start and `init --detect`: provider API keys in the environment, and the local
// OpenAI-compatible servers on the probe list (loopback only), all probed at once.
import { CliError } from './output.js';
import { isLoopbackHost, probeLocalServer, type LocalServer } from './probe-local.js';

/** Ollama, LM Studio, llama.cpp's server and vLLM on their default ports. */
export const DEFAULT_PROBE_URLS: readonly string[] = [
  'http://127.0.0.1:11434',
  'http://127.0.0.1:1234',
  'http://127.0.0.1:8080',
  'http://127.0.0.1:8000',
];

export type HostedType = 'openai' | 'anthropic' | 'google';

/** A hosted provider whose key is in the environment; the config refers to the variables, never their values. */
export interface HostedKey {
  type: HostedType;
  keyEnv: string;
  /** Set when the variable of the base URL the provider's own SDK reads is set too (a proxy, or a test's fake). */
  baseUrlEnv?: string;
}

/** Each hosted provider's key variable, and its SDK's base URL variable where it has one. */
const HOSTED_ENV: readonly { type: HostedType; keyEnv: string; baseUrlEnv?: string }[] = [
  { type: 'openai', keyEnv: 'OPENAI_API_KEY', baseUrlEnv: 'OPENAI_BASE_URL' },
  { type: 'anthropic', keyEnv: 'ANTHROPIC_API_KEY', baseUrlEnv: 'ANTHROPIC_BASE_URL' },
  { type: 'google', keyEnv: 'GEMINI_API_KEY' },
];

export interface Findings {
  keys: HostedKey[];
  /** The servers that answered, in probe-list order. */
  servers: LocalServer[];
}

/**
 * The probe list: `--probe-urls`, else AGENT_GATEWAY_PROBE_URLS (comma-separated; empty probes none), else the default
 * ports. A URL that is not http(s) on a loopback address is a usage error naming it, so nothing is probed at all.
 */
export function probeUrlsOf(flag: string | undefined, env: NodeJS.ProcessEnv): string[] {
  const text = flag ?? env.AGENT_GATEWAY_PROBE_URLS;
  if (text === undefined) return [...DEFAULT_PROBE_URLS];
  const source = flag === undefined ? 'AGENT_GATEWAY_PROBE_URLS' : '--probe-urls';
  const urls = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return urls.map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new CliError(`${source}: ${entry} is not a URL`, 2);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new CliError(`${source}: ${entry} is not an http or https URL`, 2);
    if (!isLoopbackHost(url.hostname))
      throw new CliError(
        `${source}: ${entry} is not a loopback address; only localhost, 127.0.0.0/8 and [::1] are probed`,
        2,
      );
    return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
  });
}

/** The keys set in `env`, then every probe at once; a server that does not answer in time is not found. */
export async function detectModels(env: NodeJS.ProcessEnv, probeUrls: readonly string[]): Promise<Findings> {
  const keys = HOSTED_ENV.filter(({ keyEnv }) => (env[keyEnv] ?? '') !== '').map(({ type, keyEnv, baseUrlEnv }) => ({
    type,
    keyEnv,
    ...(baseUrlEnv !== undefined && (env[baseUrlEnv] ?? '') !== '' ? { baseUrlEnv } : {}),
  }));
  const answers = await Promise.all(probeUrls.map((url) => probeLocalServer(url)));
  return { keys, servers: answers.filter((server) => server !== undefined) };
}
