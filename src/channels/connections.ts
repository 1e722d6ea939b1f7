// The live set of channel connections: built from `channels` in the config and re-applied on every change (new and
// re-enabled ones start, removed and disabled ones stop, changed ones restart), with their statuses.
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { ChannelConfig } from '../config/index.js';
import { createConnection, type Connection, type ConnectionServices, type ConnectionStatus } from './connection.js';
import type { PullInbound } from './inbound-lease.js';
import type { ChannelAdapter } from './types.js';

/**
 * Builds the adapter of one connection (src/channels/adapters.ts loads the platform's on first use). An adapter that
 * pulls its inbound (Telegram polling, IMAP) runs the pulling through `pullInbound`, so one replica pulls at a time.
 */
export type AdapterFactory = (
  config: ChannelConfig,
  deps: { channelId: string; now: () => number; log: Logger; pullInbound: PullInbound },
) => Promise<ChannelAdapter>;

export interface Connections {
  /** Starts, stops and restarts connections so they match `configs`; resolves once every change is done. */
  apply(configs: Readonly<Record<string, ChannelConfig>>): Promise<void>;
  /** The running connection with this id; undefined when it is not configured, disabled or failed to build. */
  get(id: string): Connection | undefined;
  /** Every configured connection, running or not, by id. */
  statuses(): ConnectionStatus[];
  /** Whether `id` is configured (enabled or not). */
  has(id: string): boolean;
  stop(): Promise<void>;
}

export interface ConnectionsDeps {
  services: ConnectionServices;
  createAdapter: AdapterFactory;
  /** Where connection `channelId` pulls its inbound. */
  pullInboundOf: (channelId: string) => PullInbound;
  now: () => number;
  log: Logger;
}

function stoppedStatus(id: string, config: ChannelConfig, error?: string): ConnectionStatus {
  return {
    id,
    kind: config.kind,
    agentId: config.agentId,
    enabled: config.enabled,
    state: config.enabled ? 'failed' : 'disabled',
    lastActivityAt: null,
    ...(error === undefined ? {} : { error }),
    received: 0,
    sent: 0,
    ignored: 0,
    failedDeliveries: 0,
  };
}

export function createConnections({ services, createAdapter, pullInboundOf, now, log }: ConnectionsDeps): Connections {
  const running = new Map<string, Connection>();
  let configured: Readonly<Record<string, ChannelConfig>> = {};
  /** Why a configured, enabled connection is not running (its adapter could not be built or started). */
  const failures = new Map<string, string>();
  /** Changes apply one at a time, in the order they came. */
  let applying: Promise<void> = Promise.resolve();

  async function stopOne(id: string): Promise<void> {
    const connection = running.get(id);
    if (connection === undefined) return;
    running.delete(id);
    await connection.stop().catch((error: unknown) => log.error({ err: error, channelId: id }, 'channel stop failed'));
  }

  async function startOne(id: string, config: ChannelConfig): Promise<void> {
    const connectionLog = log.child({ channelId: id, channelType: config.kind });
    let connection: Connection;
    try {
      const adapter = await createAdapter(config, {
        channelId: id,
        now,
        log: connectionLog,
        pullInbound: pullInboundOf(id),
      });
      connection = createConnection(id, config, adapter, services, connectionLog);
    } catch (error) {
      failures.set(id, error instanceof Error ? error.message : String(error));
      connectionLog.error({ err: error }, 'channel adapter could not be built');
      return;
    }
    running.set(id, connection);
    try {
      await connection.start();
    } catch (error) {
      // Kept: its status shows the failure until a config change restarts it.
      connectionLog.error({ err: error }, 'channel connection failed to start');
    }
  }

  async function applyNow(next: Readonly<Record<string, ChannelConfig>>): Promise<void> {
    const previous = configured;
    configured = next;
    const work: Promise<void>[] = [];
    for (const id of new Set([...Object.keys(previous), ...Object.keys(next)])) {
      const before = previous[id];
      const after = next[id];
      const isUp = running.has(id) || failures.has(id);
      if (after !== undefined && isDeepStrictEqual(before, after) && (isUp || !after.enabled)) continue;
      failures.delete(id);
      work.push(
        (async () => {
          await stopOne(id);
          if (after?.enabled === true) await startOne(id, after);
        })(),
      );
    }
    await Promise.all(work);
  }

  return {
    apply(next) {
      applying = applying.then(() => applyNow(next));
      return applying;
    },
    get: (id) => running.get(id),
    has: (id) => Object.hasOwn(configured, id),
    statuses() {
      return Object.entries(configured).map(([id, config]) => {
        const connection = running.get(id);
        if (connection !== undefined && config.enabled) return connection.status();
        return stoppedStatus(id, config, config.enabled ? failures.get(id) : undefined);
      });
    },
    async stop() {
      await applying;
      configured = {};
      await Promise.all([...running.keys()].map(stopOne));
    },
  };
}
