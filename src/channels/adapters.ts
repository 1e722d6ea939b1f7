// Which adapter serves each platform: the one place the core names the platform folders.
import type { ChannelConfig } from '../config/index.js';
import { channelUnavailable } from '../errors.js';
import type { AdapterFactory } from './connections.js';
import { createEmailAdapter } from './email/adapter.js';
import { createSlackAdapter } from './slack/adapter.js';
import { createTelegramAdapter } from './telegram/index.js';
import type { ChannelAdapter, ChannelKind } from './types.js';

type PlatformFactory<K extends ChannelKind> = (
  config: Extract<ChannelConfig, { kind: K }>,
  deps: Parameters<AdapterFactory>[1],
) => ChannelAdapter;

/** The platform adapters built into the gateway; a kind missing here is reported as the connection's error. */
const PLATFORMS: { [K in ChannelKind]?: PlatformFactory<K> } = {
  telegram: createTelegramAdapter,
  slack: createSlackAdapter,
  email: createEmailAdapter,
};

export const createPlatformAdapter: AdapterFactory = (config, deps) => {
  switch (config.kind) {
    case 'telegram':
      return build(PLATFORMS.telegram, config, deps);
    case 'slack':
      return build(PLATFORMS.slack, config, deps);
    case 'email':
      return build(PLATFORMS.email, config, deps);
  }
};

function build<K extends ChannelKind>(
  factory: PlatformFactory<K> | undefined,
  config: Extract<ChannelConfig, { kind: K }>,
  deps: Parameters<AdapterFactory>[1],
): ChannelAdapter {
  if (factory === undefined) throw channelUnavailable(deps.channelId, `no ${config.kind} adapter is built in`);
  return factory(config, deps);
}
