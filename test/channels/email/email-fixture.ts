// Starts the fake SMTP and IMAP servers and an email adapter pointed at them, and records what the adapter emits.
import { createEmailAdapter } from '../../../src/channels/email/adapter.js';
import type {
  ChannelAdapter,
  ChannelAdapterEvents,
  ChannelHealth,
  InboundApprovalAnswer,
  InboundMessage,
  InboundReaction,
} from '../../../src/channels/types.js';
import { emailChannelSchema, type EmailChannelConfig } from '../../../src/config/channels-schema.js';
import { captureLogs } from '../../support/log-capture.js';
import { startFakeImap, type FakeImap } from '../../support/fake-imap.js';
import { startFakeSmtp, type FakeSmtp } from '../../support/fake-smtp.js';

export const gatewayAddress = 'gateway@example.test';

export interface EmailRecorder extends ChannelAdapterEvents {
  messages: InboundMessage[];
  approvals: InboundApprovalAnswer[];
  reactions: InboundReaction[];
  healthLog: { state: ChannelHealth; error?: string }[];
  /** Resolves once `check` holds for what was recorded (checked now and after each event). */
  until(check: () => boolean): Promise<void>;
}

export function recordEvents(): EmailRecorder {
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of [...listeners]) listener();
  };
  const recorder: EmailRecorder = {
    messages: [],
    approvals: [],
    reactions: [],
    healthLog: [],
    message(message) {
      recorder.messages.push(message);
      changed();
    },
    approval(answer) {
      recorder.approvals.push(answer);
      changed();
    },
    reaction(reaction) {
      recorder.reactions.push(reaction);
      changed();
    },
    health(state, error) {
      recorder.healthLog.push(error === undefined ? { state } : { state, error });
      changed();
    },
    until(check) {
      return new Promise((resolve) => {
        const listener = () => {
          if (!check()) return;
          listeners.delete(listener);
          resolve();
        };
        listeners.add(listener);
        listener();
      });
    },
  };
  return recorder;
}

interface MailServerConfig {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
}

interface EmailServers {
  imap: MailServerConfig;
  smtp: MailServerConfig;
}

export interface EmailFixture {
  imap: FakeImap;
  smtp: FakeSmtp;
  config: EmailChannelConfig;
  adapter: ChannelAdapter;
  events: EmailRecorder;
  /** Starts the adapter and waits until it is connected (IDLE running on the fake). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** The channel config pointing at the fakes; `adjust` changes it before it is parsed (caps, a wrong password). */
export async function startEmailFixture(
  adjust: (config: Record<string, unknown> & EmailServers) => Record<string, unknown> = (config) => config,
): Promise<EmailFixture> {
  const imap = await startFakeImap({ user: gatewayAddress, password: 'imap-secret' });
  const smtp = await startFakeSmtp({ user: gatewayAddress, password: 'smtp-secret' });
  const server = (port: number, password: string) => ({
    host: '127.0.0.1',
    port,
    secure: false,
    user: gatewayAddress,
    password,
  });
  const config = emailChannelSchema.parse(
    adjust({
      kind: 'email',
      agentId: 'mail-agent',
      from: gatewayAddress,
      imap: server(imap.port, 'imap-secret'),
      smtp: server(smtp.port, 'smtp-secret'),
    }),
  );
  const adapter = createEmailAdapter(config, {
    channelId: 'mail',
    now: () => 1_700_000_000_000,
    log: captureLogs().log,
  });
  const events = recordEvents();
  let started = false;
  return {
    imap,
    smtp,
    config,
    adapter,
    events,
    async start() {
      started = true;
      await adapter.start(events);
      await events.until(() => events.healthLog.some((entry) => entry.state === 'connected'));
      await imap.waitForIdle();
    },
    async close() {
      if (started) await adapter.stop();
      await imap.close();
      await smtp.close();
    },
  };
}

/** An RFC 5322 mail as a mail client would write it (CRLF line ends are added by the fake IMAP server). */
export function mail(fields: {
  from: string;
  subject?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string;
  headers?: readonly string[];
  body: string;
}): string {
  return [
    `From: ${fields.from}`,
    `To: ${gatewayAddress}`,
    `Subject: ${fields.subject ?? 'Hello'}`,
    ...(fields.messageId === undefined ? [] : [`Message-ID: ${fields.messageId}`]),
    ...(fields.inReplyTo === undefined ? [] : [`In-Reply-To: ${fields.inReplyTo}`]),
    ...(fields.references === undefined ? [] : [`References: ${fields.references}`]),
    ...(fields.headers ?? []),
    'Date: Tue, 14 Nov 2023 22:13:20 +0000',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    fields.body,
  ].join('\n');
}
