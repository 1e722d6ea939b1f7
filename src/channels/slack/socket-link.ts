// Socket Mode: one SocketModeClient connection at a time, opened with the app token through apps.connections.open;
// every envelope is acked first, then handed on. Reconnects (Slack's refresh requests, drops, failed attempts with
// backoff) are this loop's, not the library's, so stop() can end them all and wait until nothing runs.
import { SocketModeClient } from '@slack/socket-mode';
import type { WebClientOptions } from '@slack/web-api';
import type { Logger } from 'pino';
import type { HealthTracker } from './health.js';
import { slackLibraryLogger } from './library-logger.js';
import { toDeliveryFailure } from './slack-errors.js';
import { pause } from '../pause.js';

/** The first wait after a failed connection attempt; it doubles per consecutive failure up to the maximum. */
export const SOCKET_RETRY_BASE_MS = 500;
export const SOCKET_RETRY_MAX_MS = 30_000;

export interface SocketLinkDeps {
  appToken: string;
  /** The Web API options apps.connections.open is called with (base URL, fetch bound to the adapter's lifetime). */
  clientOptions: Omit<WebClientOptions, 'logLevel' | 'logger'>;
  health: HealthTracker;
  log: Logger;
  /** Called after the envelope was acked; a throw is logged (the payload was not understood). */
  onEnvelope(type: string, body: unknown): void;
}

export interface SocketLink {
  start(): void;
  stop(): Promise<void>;
}

export function createSocketLink({ appToken, clientOptions, health, log, onEnvelope }: SocketLinkDeps): SocketLink {
  const stopping = new AbortController();
  let current: SocketModeClient | undefined;
  let loop: Promise<void> | undefined;

  function connectionClient(): SocketModeClient {
    const client = new SocketModeClient({
      appToken,
      // Reconnecting is the loop's job: the library's own reconnect timers could outlive stop().
      autoReconnectEnabled: false,
      logger: slackLibraryLogger(log),
      clientOptions,
    });
    client.on('slack_event', ({ ack, type, body }: { ack: () => Promise<void>; type: string; body: unknown }) => {
      ack().catch((error: unknown) =>
        log.warn({ err: toDeliveryFailure(error) }, 'slack: an envelope could not be acked'),
      );
      try {
        onEnvelope(type, body);
      } catch (error) {
        log.warn({ err: error, envelopeType: type }, 'slack: an envelope was not understood');
      }
    });
    return client;
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!stopping.signal.aborted) {
      const client = connectionClient();
      current = client;
      const closed = new Promise<void>((resolve) => client.once('disconnected', () => resolve()));
      try {
        await client.start();
        if (stopping.signal.aborted) break;
        failures = 0;
        health.connected();
        await closed;
        if (!stopping.signal.aborted) health.connecting();
      } catch (error) {
        if (stopping.signal.aborted) break;
        failures += 1;
        health.linkFailed(toDeliveryFailure(error), failures);
        await pause(Math.min(SOCKET_RETRY_BASE_MS * 2 ** (failures - 1), SOCKET_RETRY_MAX_MS), stopping.signal);
      }
    }
    // A connection that came up while stop() was under way is closed here, so none survives the loop.
    await current?.disconnect();
  }

  return {
    start() {
      health.connecting();
      loop = run().catch((error: unknown) => log.error({ err: error }, 'slack: the Socket Mode loop failed'));
    },
    async stop() {
      stopping.abort();
      await current?.disconnect();
      await loop;
    },
  };
}
