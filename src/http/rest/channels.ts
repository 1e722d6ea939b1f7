// GET /api/channels: the gateway's own surfaces and the chat-platform connections, merged with the recorded activity.
import type { FastifyInstance } from 'fastify';
import type { ConnectionStatus } from '../../channels/index.js';
import type { ChannelActivity } from '../../obs/index.js';
import { grantsRest } from '../../server/index.js';
import type { RestContext } from './types.js';

/**
 * The spec's ChannelActivity (channelId, channelType, lastActiveAt, messagesSent, messagesReceived) plus
 * `enabled`, `status` and, for the JSON-RPC channel, the open WebSocket `connections`.
 */
export interface ChannelStatus {
  channelId: string;
  channelType: string;
  enabled: boolean;
  /**
   * A surface: `connected` while a WebSocket client is connected, else `listening`. A chat connection: its state
   * (connecting, connected, degraded, disconnected, failed, disabled).
   */
  status: 'connected' | 'listening' | ConnectionStatus['state'];
  /** Epoch ms of the last message received or sent; null for a surface that has not carried one. */
  lastActiveAt: number | null;
  messagesSent: number;
  messagesReceived: number;
  connections?: number;
  /** A chat connection's agent. */
  agentId?: string;
  /** A chat connection's last error, while it is not connected. */
  error?: string;
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

/**
 * Surfaces first (always listed, even idle), then the chat connections configured (each, enabled or not), then every
 * other channel with recorded activity, newest first.
 */
export function channelStatuses(
  activity: readonly ChannelActivity[],
  {
    wsConnections,
    isWebhookEnabled = () => false,
    chatConnections = () => [],
  }: Pick<RestContext, 'wsConnections' | 'isWebhookEnabled' | 'chatConnections'>,
): ChannelStatus[] {
  const surfaces: { channelId: string; channelType: string }[] = [...SURFACES];
  if (isWebhookEnabled()) surfaces.push({ channelId: 'webhook', channelType: 'webhook' });
  const byId = new Map(activity.map((entry) => [entry.channelId, entry]));
  const known = new Set(surfaces.map((surface) => surface.channelId));
  const statuses: ChannelStatus[] = surfaces.map(({ channelId, channelType }) => {
    const recorded = byId.get(channelId);
    const connections = channelId === 'rpc' && wsConnections !== undefined ? wsConnections() : undefined;
    return {
      channelId,
      channelType,
      enabled: true,
      status: connections !== undefined && connections > 0 ? 'connected' : 'listening',
      lastActiveAt: recorded?.lastActiveAt ?? null,
      messagesSent: recorded?.messagesSent ?? 0,
      messagesReceived: recorded?.messagesReceived ?? 0,
      ...(connections === undefined ? {} : { connections }),
    };
  });
  for (const connection of chatConnections()) {
    const recorded = byId.get(connection.id);
    known.add(connection.id);
    statuses.push({
      channelId: connection.id,
      channelType: connection.kind,
      enabled: connection.enabled,
      status: connection.state,
      lastActiveAt: Math.max(connection.lastActivityAt ?? 0, recorded?.lastActiveAt ?? 0) || null,
      messagesSent: recorded?.messagesSent ?? 0,
      messagesReceived: recorded?.messagesReceived ?? 0,
      agentId: connection.agentId,
      ...(connection.error === undefined ? {} : { error: connection.error }),
    });
  }
  for (const entry of activity) {
    if (known.has(entry.channelId)) continue;
    // A webhook with activity but no gateway.webhook now was unmounted: its history stays, shown as disabled.
    statuses.push({ ...entry, enabled: entry.channelId !== 'webhook', status: 'listening' });
  }
  return statuses;
}

export function registerChannelsRoute(scope: FastifyInstance, ctx: RestContext): void {
  scope.get('/channels', { onRequest: ctx.auth.require({ grants: grantsRest }) }, async function listChannels() {
    return { channels: channelStatuses(await ctx.channelActivity.all(), ctx) };
  });
}
