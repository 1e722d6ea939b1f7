// The config keys read once at start: a change to one is applied at the next restart, and until then it is named in the
// log ("applies at restart") and in gateway.status `restartPending`. Every other key applies as soon as it changes.
import { isDeepStrictEqual } from 'node:util';
import type { GatewayConfig } from './schema.js';

/**
 * Dotted keys (a whole section or object where all of it is read at start), with why each waits for a restart:
 * the socket is bound and its TLS context built once; Fastify fixes the body limit and the routes (REST, dashboard)
 * when they are registered, and Node the connection check interval derived from the timeouts when the server is
 * created; the WebSocket server its frame limit and heartbeat timer; the event feed its replay buffer; the store,
 * coordination, the media directory and the sweep timers are opened once; the audio method's params limit is fixed
 * when the method is registered.
 */
export const RESTART_KEYS: readonly string[] = [
  'gateway.enabled',
  'gateway.host',
  'gateway.port',
  'gateway.tls',
  'gateway.httpBodyLimitBytes',
  'gateway.headersTimeoutMs',
  'gateway.requestTimeoutMs',
  'gateway.wsHeartbeatMs',
  'gateway.wsMessageRateLimit',
  'gateway.wsMaxMessageBytes',
  'gateway.web',
  'gateway.webDistPath',
  'gateway.sseReplayEvents',
  'storage',
  'coordination',
  'media.dir',
  'media.sweepIntervalMs',
  'memory.embeddingCacheMaxEntries',
  'memory.lifecycle.sweepIntervalMs',
  'audio.maxAudioBytes',
  'otel',
  'metrics',
  'runs.maxRunning',
];

function valueAt(config: GatewayConfig, key: string): unknown {
  let value: unknown = config;
  for (const part of key.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = Object.entries(value).find(([name]) => name === part)?.[1];
  }
  return value;
}

/** The restart keys whose value differs between two configs, in RESTART_KEYS order. */
export function changedRestartKeys(before: GatewayConfig, after: GatewayConfig): string[] {
  return RESTART_KEYS.filter((key) => !isDeepStrictEqual(valueAt(before, key), valueAt(after, key)));
}
