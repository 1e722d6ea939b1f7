// A stand-in channel core for the email adapter's clean-exit test: connects to the fake IMAP/SMTP ports given as
// arguments, waits for one mail, answers it, stops the adapter and prints "stopped"; it never calls process.exit, so
// the process ends only if stop() left no socket, timer or loop behind.
import { createEmailAdapter } from '../../src/channels/email/adapter.js';
import { emailChannelSchema } from '../../src/config/channels-schema.js';
import { createLogger } from '../../src/obs/logger.js';

const [imapPort, smtpPort] = process.argv.slice(2).map(Number);
const address = 'gateway@example.test';
const server = (port: number | undefined, password: string) => ({
  host: '127.0.0.1',
  port,
  secure: false,
  user: address,
  password,
});
const adapter = createEmailAdapter(
  emailChannelSchema.parse({
    kind: 'email',
    agentId: 'mail-agent',
    from: address,
    imap: server(imapPort, 'imap-secret'),
    smtp: server(smtpPort, 'smtp-secret'),
  }),
  { channelId: 'mail', now: Date.now, log: createLogger({ level: 'silent' }) },
);

const answered = new Promise<void>((resolve, reject) => {
  void adapter.start({
    message(message) {
      adapter
        .send({ chatId: message.chatId, text: 'Got it.', replyTo: message.messageId }, new AbortController().signal)
        .then(() => resolve(), reject);
    },
    reaction: () => undefined,
    approval: () => undefined,
    health: (state) => process.stdout.write(`${state}\n`),
  });
});
await answered;
await adapter.test(new AbortController().signal);
await adapter.stop();
process.stdout.write('stopped\n');
