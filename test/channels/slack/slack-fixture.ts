// The Slack adapter against the fake Slack: a recorder of what the adapter tells the core, and its routes mounted in a
// Fastify server under `/channels/<id>/` as the channel core mounts them.
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { createSlackAdapter } from '../../../src/channels/slack/adapter.js';
import type {
  ChannelAdapter,
  ChannelAdapterEvents,
  ChannelHealth,
  InboundApprovalAnswer,
  InboundMessage,
  InboundReaction,
} from '../../../src/channels/types.js';
import { slackChannelSchema } from '../../../src/config/channels-schema.js';
import { captureLogs, type LogCapture } from '../../support/log-capture.js';
import {
  FAKE_APP_TOKEN,
  FAKE_BOT_TOKEN,
  FAKE_SIGNING_SECRET,
  startFakeSlack,
  type FakeSlack,
} from '../../support/fake-slack.js';

export const CHANNEL_ID = 'slack1';

export interface Recorded {
  messages: InboundMessage[];
  reactions: InboundReaction[];
  approvals: InboundApprovalAnswer[];
  health: { state: ChannelHealth; error?: string }[];
}

export interface SlackFixture {
  fake: FakeSlack;
  adapter: ChannelAdapter;
  recorded: Recorded;
  logs: LogCapture;
  /** `http://127.0.0.1:<port>/channels/slack1` (events mode only). */
  routeBase: string;
  /** Resolves once `check` holds over what was recorded (checked after each adapter event). */
  until<T>(check: (recorded: Recorded) => T | undefined, what: string): Promise<T>;
  close(): Promise<void>;
}

export function recorder(): {
  recorded: Recorded;
  events: ChannelAdapterEvents;
  onChange: (listener: () => void) => void;
} {
  const recorded: Recorded = { messages: [], reactions: [], approvals: [], health: [] };
  const listeners: (() => void)[] = [];
  const changed = () => {
    for (const listener of listeners) listener();
  };
  return {
    recorded,
    onChange: (listener) => listeners.push(listener),
    events: {
      message: (message) => {
        recorded.messages.push(message);
        changed();
      },
      reaction: (reaction) => {
        recorded.reactions.push(reaction);
        changed();
      },
      approval: (answer) => {
        recorded.approvals.push(answer);
        changed();
      },
      health: (state, error) => {
        recorded.health.push(error === undefined ? { state } : { state, error });
        changed();
      },
    },
  };
}

export async function startSlackFixture(
  mode: 'events' | 'socket' = 'events',
  overrides: Record<string, unknown> = {},
): Promise<SlackFixture> {
  const fake = await startFakeSlack();
  const logs = captureLogs();
  const config = slackChannelSchema.parse({
    kind: 'slack',
    agentId: 'main',
    botToken: FAKE_BOT_TOKEN,
    mode,
    signingSecret: FAKE_SIGNING_SECRET,
    appToken: FAKE_APP_TOKEN,
    apiBaseUrl: fake.apiBaseUrl,
    ...overrides,
  });
  const adapter = createSlackAdapter(config, { channelId: CHANNEL_ID, now: () => Date.now(), log: logs.log });
  const { recorded, events, onChange } = recorder();
  let app: FastifyInstance | undefined;
  let routeBase = '';
  if (adapter.routes !== undefined) {
    const routes = adapter.routes;
    app = Fastify();
    await app.register(async (scope) => routes(scope), { prefix: `/channels/${CHANNEL_ID}` });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    routeBase = `http://127.0.0.1:${port}/channels/${CHANNEL_ID}`;
  }
  await adapter.start(events);
  return {
    fake,
    adapter,
    recorded,
    logs,
    routeBase,
    until(check, what) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not recorded within 10 s: ${what}`)), 10_000);
        let done = false;
        const test = () => {
          if (done) return;
          const value = check(recorded);
          if (value === undefined) return;
          done = true;
          clearTimeout(timer);
          resolve(value);
        };
        onChange(test);
        test();
      });
    },
    async close() {
      await adapter.stop();
      await app?.close();
      await fake.close();
    },
  };
}
