// The email channel adapter: IMAP IDLE in (imapflow, mailparser), SMTP out (nodemailer); one chat per sender address,
// threads by Message-ID / References, approvals answered by a reply "approve <code>" / "deny <code>". No reactions.
import { ImapFlow } from 'imapflow';
import type { EmailChannelConfig } from './email-config.js';
import type { Logger } from '../../obs/index.js';
import type { ApprovalPrompt, ChannelAdapter, ChannelAdapterEvents } from '../types.js';
import { pullInboundHere, type InboundHold, type PullInbound } from '../inbound-lease.js';
import { deliveryFailure } from './delivery-failure.js';
import { createImapInbox, errorText, imapClient, type FetchedMail } from './imap-inbox.js';
import { readInboundMail } from './inbound-mail.js';
import { createSmtpOutbox } from './smtp-outbox.js';
import { createThreadSubjects } from './thread-subjects.js';

export interface EmailAdapterDeps {
  channelId: string;
  now: () => number;
  log: Logger;
  /** Where the IMAP inbox is watched (one replica at a time); default: here. */
  pullInbound?: PullInbound;
  fetchImpl?: never;
}

/** A mail carries any length; this bounds one reply chunk so a runaway answer is still split into readable mails. */
const maxEmailChars = 100_000;

/** The subject of a mail that answers no known thread (a heartbeat, channels.send, a thread from before a restart). */
const subjectWithoutThread = 'Message from your agent';

export function createEmailAdapter(config: EmailChannelConfig, deps: EmailAdapterDeps): ChannelAdapter {
  const log = deps.log.child({ channelId: deps.channelId, channelKind: 'email' });
  const subjects = createThreadSubjects();
  const outbox = createSmtpOutbox(config);
  let events: ChannelAdapterEvents | undefined;
  let inbound: InboundHold | undefined;

  async function onMail(mail: FetchedMail): Promise<void> {
    const read = await readInboundMail(mail.source, config.from, {
      uid: mail.uid,
      uidValidity: mail.uidValidity,
      receivedAt: deps.now(),
      ...(mail.oversizedBytes === undefined ? {} : { oversizedBytes: mail.oversizedBytes }),
    });
    if (read.kind === 'ignored') {
      log.debug({ uid: mail.uid, reason: read.reason }, 'email: inbound mail ignored');
      return;
    }
    if (read.kind === 'approval') {
      events?.approval(read.answer);
      return;
    }
    if (read.message.threadId !== undefined) subjects.remember(read.message.threadId, read.subject);
    events?.message(read.message);
  }

  const inbox = createImapInbox(config, {
    log,
    onMail,
    onHealth: (state, error) => events?.health(state, error),
  });

  // One header line whatever the tool is called.
  const approvalSubject = (prompt: ApprovalPrompt) => `Approval needed: ${prompt.toolName.replace(/[\r\n]+/g, ' ')}`;

  return {
    kind: 'email',
    maxMessageChars: maxEmailChars,
    async start(adapterEvents) {
      events = adapterEvents;
      inbound = (deps.pullInbound ?? pullInboundHere)({
        start: () => inbox.start(),
        stop: () => inbox.stop(),
        // Another replica watches the inbox: this one only sends, so the SMTP login is its health.
        standby() {
          outbox.verify(AbortSignal.timeout(standbyCheckTimeoutMs)).then(
            () => events?.health('connected'),
            (error: unknown) => events?.health('degraded', errorText(error)),
          );
        },
      });
      await inbound.started;
    },
    async stop() {
      await inbound?.stop();
      inbound = undefined;
      outbox.close();
    },
    send(message, signal) {
      return outbox.send(
        {
          to: message.chatId,
          subject: subjects.replySubject(message.threadId, subjectWithoutThread),
          text: message.text,
          ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
          ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
        },
        signal,
      );
    },
    // Mail has no typing indicator.
    typing: () => Promise.resolve(),
    askApproval(prompt, signal) {
      const text = [
        `The agent asks to run ${prompt.toolName}:`,
        '',
        prompt.summary,
        '',
        'Reply with one of these as the first line of your answer:',
        '',
        `approve ${prompt.code}`,
        `deny ${prompt.code}`,
      ].join('\n');
      return outbox.send(
        {
          to: prompt.chatId,
          subject: approvalSubject(prompt),
          text,
          ...(prompt.threadId === undefined ? {} : { threadId: prompt.threadId }),
        },
        signal,
      );
    },
    async settleApproval(prompt) {
      const verdict = prompt.approved ? 'Approved' : 'Denied';
      await outbox.send(
        {
          to: prompt.chatId,
          subject: `Re: ${approvalSubject(prompt)}`,
          text: `${verdict} by ${prompt.by}: ${prompt.toolName} (${prompt.code}).`,
          threadId: prompt.threadId ?? prompt.messageId,
          replyTo: prompt.messageId,
        },
        AbortSignal.timeout(settleTimeoutMs),
      );
    },
    async test(signal) {
      await outbox.verify(signal);
      await imapNoop(imapClient(config), signal);
      return {
        detail:
          `SMTP ${config.smtp.host}:${config.smtp.port} accepted the login; ` +
          `IMAP ${config.imap.host}:${config.imap.port} answered NOOP`,
      };
    },
  };
}

/** How long a standing-by replica's SMTP check may take. */
const standbyCheckTimeoutMs = 30_000;

/** settleApproval takes no signal: its follow-up mail gets this long. */
const settleTimeoutMs = 60_000;

/** A fresh IMAP login and NOOP, apart from the IDLE connection, so it says whether the account works now. */
async function imapNoop(client: ImapFlow, signal: AbortSignal): Promise<void> {
  const onAbort = () => client.close();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    signal.throwIfAborted();
    await client.connect();
    await client.noop();
    await client.logout();
  } catch (error) {
    throw deliveryFailure(`IMAP: ${errorText(error)}`, true, error);
  } finally {
    signal.removeEventListener('abort', onAbort);
    client.close();
  }
}
