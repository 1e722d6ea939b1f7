// The email connection's config (`channels.<id>` with kind email), taken from the config folder's door.
import type { ChannelConfig } from '../../config/index.js';

export type EmailChannelConfig = Extract<ChannelConfig, { kind: 'email' }>;
