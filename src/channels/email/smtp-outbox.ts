// Mail out through nodemailer's SMTP transport: replies threaded with In-Reply-To / References, failures read as
// DeliveryFailure (4xx and network retryable, 5xx not).
import nodemailer from 'nodemailer';
import type { EmailChannelConfig } from './email-config.js';
import { deliveryFailure, smtpFailure } from './delivery-failure.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** The thread root's Message-ID (References). */
  threadId?: string;
  /** The Message-ID of the mail answered (In-Reply-To). */
  replyTo?: string;
}

export interface SmtpOutbox {
  /** Sends one mail; resolves to its Message-ID. Throws a DeliveryFailure. */
  send(mail: OutgoingMail, signal: AbortSignal): Promise<{ messageId: string }>;
  /** SMTP connect, greeting and login without sending anything. */
  verify(signal: AbortSignal): Promise<void>;
  close(): void;
}

/** A stalled SMTP server fails the send within these instead of nodemailer's minutes-long defaults. */
const smtpConnectTimeoutMs = 30_000;
const smtpSocketTimeoutMs = 60_000;

export function createSmtpOutbox(config: EmailChannelConfig): SmtpOutbox {
  const transport = nodemailer.createTransport({
    host: config.smtp.host,
    port: config.smtp.port,
    secure: config.smtp.secure,
    auth: { user: config.smtp.user, pass: config.smtp.password },
    connectionTimeout: smtpConnectTimeoutMs,
    greetingTimeout: smtpConnectTimeoutMs,
    socketTimeout: smtpSocketTimeoutMs,
    logger: false,
    debug: false,
  });

  return {
    async send(mail, signal) {
      const references = [...new Set([mail.threadId, mail.replyTo].filter((id) => id !== undefined))];
      const inReplyTo = mail.replyTo ?? mail.threadId;
      const info = await abortable(
        () =>
          transport.sendMail({
            from: config.from,
            to: mail.to,
            subject: mail.subject,
            text: mail.text,
            ...(inReplyTo === undefined ? {} : { inReplyTo }),
            ...(references.length === 0 ? {} : { references }),
          }),
        signal,
      );
      return { messageId: info.messageId };
    },
    async verify(signal) {
      await abortable(() => transport.verify(), signal);
    },
    close() {
      transport.close();
    },
  };
}

/**
 * nodemailer takes no AbortSignal: an abort stops the wait (a retryable failure), and the SMTP exchange in flight
 * ends on its own within the socket timeout. The mail may still have been accepted then, so a retry may duplicate it.
 */
async function abortable<T>(start: () => Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw deliveryFailure('the send was aborted', true, signal.reason);
  const work = start();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(deliveryFailure('the send was aborted', true, signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work.catch((error: unknown) => Promise.reject(smtpFailure(error))), aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}
