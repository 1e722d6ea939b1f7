// Channels: agents on chat platforms (Telegram, Slack, email) — the connections from `channels`, their turns, replies,
// reactions and health — and the delivery interface heartbeats and approvals use. Other folders import only this file.
export { createPlatformAdapter } from './adapters.js';
export { channelTenants, type ChatRef } from './chat-sessions.js';
export type { ConnectionStatus } from './connection.js';
export type { AdapterFactory } from './connections.js';
export { channelMethods } from './methods.js';
export { createChannelsModule, type ChannelDelivery, type ChannelsModule } from './module.js';
export type * from './types.js';
