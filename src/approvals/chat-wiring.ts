// How the gateway wires approvals into chats: typed answers picked out of each adapter's messages, and the bridge
// (built once the channels module exists) as a module listed after it, so it finishes its posts before channels stop.
import type { CapabilityModule } from '../capability.js';
import type { AdapterFactory, ChannelDelivery } from '../channels/index.js';
import type { ConfigStore } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import type { ApprovalPort } from '../store/index.js';
import type { Logger } from 'pino';
import type { ApprovalService } from './approval-service.js';
import { createChatApprovals, type ChatApprovals } from './chat-approvals.js';
import { withTypedApprovalAnswers } from './typed-answers.js';

export interface ChatApprovalsWiring {
  /** Wraps the platform adapter factory: "approve <code>" messages become approval answers. */
  wrapAdapter(factory: AdapterFactory): AdapterFactory;
  /** Builds the bridge; subscribes at once, so requests a restart ends before anything starts are seen. */
  attach(parts: {
    channels: ChannelDelivery;
    approvals: ApprovalService;
    requests: ApprovalPort;
    configStore: Pick<ConfigStore, 'get'>;
    events: EventBus;
    child: (component: string) => Logger;
  }): CapabilityModule;
}

export function chatApprovalsWiring(): ChatApprovalsWiring {
  let bridge: ChatApprovals | undefined;
  return {
    wrapAdapter: (factory) => withTypedApprovalAnswers(factory, () => bridge),
    attach({ channels, approvals, requests, configStore, events, child }) {
      const built = createChatApprovals({
        channels,
        approvals,
        requests,
        events,
        operators: (channelId) => configStore.get().channels[channelId]?.allow.senders,
        log: child('chat-approvals'),
      });
      bridge = built;
      return { name: 'chat-approvals', stop: () => built.close() };
    },
  };
}
