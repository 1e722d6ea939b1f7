// GET /api/channels: the gateway's own surfaces as channels, with live message counts taken from the event bus.
import type { FastifyInstance } from 'fastify';
import type { BusEvent, EventBus } from '../../obs/event-bus.js';
import { grantsRest } from '../../server/scopes.js';
import type { RestContext } from './types.js';

/**
 * The spec's ChannelActivity (channelId, channelType, lastActiveAt, messagesSent, messagesReceived) plus
 * `enabled`, `status` and, for the JSON-RPC channel, the open WebSocket `connections`.
 */
export interface ChannelActivity {
  channelId: string;
  channelType: string;
  enabled: boolean;
  /** `connected` while a WebSocket client is connected, else `listening`. */
  status: 'connected' | 'listening';
  /** Epoch ms of the last message received or sent, null before the first. */
  lastActiveAt: number | null;
  messagesSent: number;
  messagesReceived: number;
  connections?: number;
}

interface Counters {
  lastActiveAt: number | null;
  messagesSent: number;
  messagesReceived: number;
}

/**
 * The channel ids of the gateway's surfaces are the channel part of the session keys they create:
 * `rpc` (agent.execute over /ws and POST /rpc), `rest` (/api/chat), `openai` (/v1).
 */
const SURFACES = [
  { channelId: 'rpc', channelType: 'jsonrpc' },
  { channelId: 'rest', channelType: 'rest' },
  { channelId: 'openai', channelType: 'openai' },
] as const;

export interface ChannelTracker {
  snapshot(): ChannelActivity[];
  /** Stops following the bus. */
  close(): void;
}

function channelOf(event: BusEvent): string | undefined {
  const { sessionKey } = event.payload;
  return typeof sessionKey === 'string' ? sessionKey.split(':')[2] : undefined;
}

/** Counts message:received and message:sent per channel from now on (live data since the gateway started). */
export function createChannelTracker({ events, wsConnections, isWebhookEnabled = false }: { events: EventBus; wsConnections?: () => number; isWebhookEnabled?: boolean }): ChannelTracker {
  const counters = new Map<string, Counters>();
  const counterOf = (channelId: string): Counters => {
    let entry = counters.get(channelId);
    if (entry === undefined) {
      entry = { lastActiveAt: null, messagesSent: 0, messagesReceived: 0 };
      counters.set(channelId, entry);
    }
    return entry;
  };
  const unsubscribe = events.subscribe(function countChannelMessages(event) {
    if (event.name !== 'message:received' && event.name !== 'message:sent') return;
    const channelId = channelOf(event);
    if (channelId === undefined) return;
    const entry = counterOf(channelId);
    if (event.name === 'message:received') entry.messagesReceived += 1;
    else entry.messagesSent += 1;
    entry.lastActiveAt = event.ts;
  });

  return {
    snapshot() {
      const surfaces: { channelId: string; channelType: string }[] = [...SURFACES];
      if (isWebhookEnabled) surfaces.push({ channelId: 'webhook', channelType: 'webhook' });
      const known = new Set(surfaces.map((surface) => surface.channelId));
      // Sessions on other channels (sub-agents, caller-chosen keys) are listed after the surfaces.
      for (const channelId of [...counters.keys()].sort()) if (!known.has(channelId)) surfaces.push({ channelId, channelType: 'session' });
      return surfaces.map(({ channelId, channelType }) => {
        const connections = channelId === 'rpc' && wsConnections !== undefined ? wsConnections() : undefined;
        return {
          channelId,
          channelType,
          enabled: true,
          status: connections !== undefined && connections > 0 ? 'connected' : 'listening',
          ...(counters.get(channelId) ?? { lastActiveAt: null, messagesSent: 0, messagesReceived: 0 }),
          ...(connections === undefined ? {} : { connections }),
        };
      });
    },
    close: unsubscribe,
  };
}

export function registerChannelsRoute(scope: FastifyInstance, ctx: RestContext): void {
  const tracker = createChannelTracker(ctx);
  scope.addHook('onClose', async function stopChannelTracker() {
    tracker.close();
  });
  scope.get('/channels', { onRequest: ctx.auth.require({ grants: grantsRest }) }, async function listChannels() {
    return { channels: tracker.snapshot() };
  });
}
