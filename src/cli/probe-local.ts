// Probes one local OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM …) for the models it serves: loopback
// addresses only, a short time limit, a bounded answer, no redirects followed.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIPv4 } from 'node:net';

/** How long one server has to answer both of its requests. */
export const PROBE_TIMEOUT_MS = 300;
/** Bytes of one model list read; a longer answer is no model list (Ollama's with hundreds of models is ~100 KiB). */
const MAX_PROBE_RESPONSE_BYTES = 1_048_576;

export type LocalServerKind = 'ollama' | 'lmstudio' | 'llamacpp' | 'vllm' | 'local';

export interface LocalServer {
  kind: LocalServerKind;
  /** The URL as probed, without a trailing `/` or `/v1`. */
  url: string;
  /** Model ids as its `/v1/models` (or Ollama's `/api/tags`) lists them, in its order. */
  models: string[];
}

/** What a server on a well-known port is, when it does not answer Ollama's /api/tags. */
const KIND_BY_PORT: Readonly<Record<string, LocalServerKind>> = {
  '1234': 'lmstudio',
  '8080': 'llamacpp',
  '8000': 'vllm',
};

/** Whether `hostname` (as URL parses it) names this machine: localhost, 127.0.0.0/8 or ::1, never a DNS lookup. */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  return isIPv4(hostname) && hostname.startsWith('127.');
}

function getJson(url: URL, signal: AbortSignal): Promise<unknown> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    // No agent: nothing is kept open after the answer. A redirect is an answer that is not 200, so it is not followed.
    const outgoing = request(url, { signal, agent: false, headers: { accept: 'application/json' } });
    outgoing.on('response', (response: IncomingMessage) => {
      if (response.statusCode !== 200) {
        response.resume();
        resolve(undefined);
        return;
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > MAX_PROBE_RESPONSE_BYTES) {
          outgoing.destroy();
          resolve(undefined);
        } else chunks.push(chunk);
      });
      response.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          resolve(undefined);
        }
      });
      response.on('error', () => resolve(undefined));
    });
    outgoing.on('error', () => resolve(undefined));
    outgoing.end();
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The string `field` of each entry of `list`, in order; undefined when `list` is not a list. */
function idsOf(list: unknown, field: string): string[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.flatMap((entry) => {
    const id = isRecord(entry) ? entry[field] : undefined;
    return typeof id === 'string' && id !== '' ? [id] : [];
  });
}

/**
 * Asks `url` (loopback, checked by the caller) for Ollama's `/api/tags` and the OpenAI `/v1/models` at once; undefined
 * when neither answers a model list within PROBE_TIMEOUT_MS.
 */
export async function probeLocalServer(url: string): Promise<LocalServer | undefined> {
  const base = new URL(url);
  const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  const at = (path: string) => new URL(`${base.pathname.replace(/\/$/, '')}${path}`, base);
  const [tags, models] = await Promise.all([getJson(at('/api/tags'), signal), getJson(at('/v1/models'), signal)]);
  const ollamaModels = isRecord(tags) ? idsOf(tags.models, 'name') : undefined;
  const listed = isRecord(models) ? idsOf(models.data, 'id') : undefined;
  if (ollamaModels === undefined && listed === undefined) return undefined;
  return {
    kind: ollamaModels === undefined ? (KIND_BY_PORT[base.port] ?? 'local') : 'ollama',
    url,
    models: ollamaModels ?? listed ?? [],
  };
}
