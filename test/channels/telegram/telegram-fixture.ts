// What the Telegram adapter tests share: a fake Bot API, an adapter pointed at it, and the events it reported.
import { telegramChannelSchema } from '../../../src/config/channels-schema.js';
import type {
  ChannelAdapterEvents,
  ChannelHealth,
  InboundApprovalAnswer,
  InboundMessage,
  InboundReaction,
} from '../../../src/channels/types.js';
import { createTelegramAdapter } from '../../../src/channels/telegram/index.js';
import { captureLogs } from '../../support/log-capture.js';
import { startFakeTelegram, type FakeTelegram } from '../../support/fake-telegram.js';

export const TOKEN = '123456:test-token';
export const NOW = 1_790_000_000_000;

export interface RecordedEvents extends ChannelAdapterEvents {
  messages: InboundMessage[];
  reactions: InboundReaction[];
  approvals: InboundApprovalAnswer[];
  health: ChannelAdapterEvents['health'];
  states: { state: ChannelHealth; error?: string }[];
  /** Resolves once `count` of `kind` were reported (already or later). */
  waitFor(kind: 'messages' | 'reactions' | 'approvals', count?: number): Promise<void>;
  /** Resolves once the adapter reported `state` (already or later); `after`: skip the first `after` reports. */
  waitForState(state: ChannelHealth, after?: number): Promise<void>;
}

export function recordEvents(): RecordedEvents {
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  const until = (condition: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!condition()) return;
        listeners.delete(check);
        resolve();
      };
      listeners.add(check);
      check();
    });
  const recorded: RecordedEvents = {
    messages: [],
    reactions: [],
    approvals: [],
    states: [],
    message(message) {
      recorded.messages.push(message);
      notify();
    },
    reaction(reaction) {
      recorded.reactions.push(reaction);
      notify();
    },
    approval(answer) {
      recorded.approvals.push(answer);
      notify();
    },
    health(state, error) {
      recorded.states.push(error === undefined ? { state } : { state, error });
      notify();
    },
    waitFor: (kind, count = 1) => until(() => recorded[kind].length >= count),
    waitForState: (state, after = 0) =>
      until(() => recorded.states.slice(after).some((entry) => entry.state === state)),
  };
  return recorded;
}

export interface AdapterSetup {
  telegram: FakeTelegram;
  adapter: ReturnType<typeof createTelegramAdapter>;
  events: RecordedEvents;
}

export async function setUpAdapter(options: { mode?: 'polling' | 'webhook'; webhookSecret?: string } = {}) {
  const telegram = await startFakeTelegram({ token: TOKEN });
  const config = telegramChannelSchema.parse({
    kind: 'telegram',
    agentId: 'agent-1',
    token: TOKEN,
    apiBaseUrl: telegram.apiRoot,
    mode: options.mode ?? 'polling',
    ...(options.webhookSecret === undefined ? {} : { webhookSecret: options.webhookSecret }),
  });
  const adapter = createTelegramAdapter(config, { channelId: 'tg1', now: () => NOW, log: captureLogs('warn').log });
  return { telegram, adapter, events: recordEvents() };
}

/** A private-chat text message from user 77 in chat 77, as the Bot API sends it. */
export function textMessage(text: string, extra: Record<string, unknown> = {}) {
  return {
    message_id: 11,
    date: 1_790_000_000,
    chat: { id: 77, type: 'private', first_name: 'Alice' },
    from: { id: 77, is_bot: false, first_name: 'Alice', username: 'alice' },
    text,
    ...extra,
  };
}
