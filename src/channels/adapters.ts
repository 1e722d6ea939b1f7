// Which adapter serves each platform, the one place the core names the platform folders: each is imported on first use,
// so a gateway with no connection of a kind never loads that platform's library (grammy, the Slack SDK, imapflow).
import type { AdapterFactory } from './connections.js';

export const createPlatformAdapter: AdapterFactory = async (config, deps) => {
  switch (config.kind) {
    case 'telegram':
      return (await import('./telegram/index.js')).createTelegramAdapter(config, deps);
    case 'slack':
      return (await import('./slack/adapter.js')).createSlackAdapter(config, deps);
    case 'email':
      return (await import('./email/adapter.js')).createEmailAdapter(config, deps);
  }
};
