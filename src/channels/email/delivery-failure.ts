// The email adapter's DeliveryFailure: how an SMTP or IMAP failure reads to the channel core (retry or give up).
import type { DeliveryFailure } from '../types.js';

/** nodemailer error codes that are the message or the setup, not the network: sending it again cannot help. */
const permanentCodes = new Set(['EENVELOPE', 'EMESSAGE', 'ESTREAM', 'ECONFIG']);

class EmailDeliveryFailure extends Error implements DeliveryFailure {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'DeliveryFailure';
  }
}

export function deliveryFailure(message: string, retryable: boolean, cause?: unknown): DeliveryFailure {
  return new EmailDeliveryFailure(message, retryable, cause === undefined ? undefined : { cause });
}

/**
 * SMTP reply codes decide when the server answered: 4xx is transient (greylisting, mailbox busy, rate limits),
 * 5xx is permanent (unknown recipient, rejected, bad credentials). Without a reply it was the network (refused,
 * reset, timed out), which is retryable, unless nodemailer refused the message itself. SMTP names no retry delay,
 * so retryAfterMs stays unset and the core's backoff decides.
 */
export function smtpFailure(error: unknown): DeliveryFailure {
  const responseCode = numberField(error, 'responseCode');
  const code = stringField(error, 'code');
  const what = responseCode !== undefined ? `SMTP ${responseCode}` : (code ?? 'SMTP failure');
  const detail = error instanceof Error ? error.message : String(error);
  if (responseCode !== undefined) {
    return deliveryFailure(`${what}: ${detail}`, responseCode >= 400 && responseCode < 500, error);
  }
  return deliveryFailure(`${what}: ${detail}`, code === undefined || !permanentCodes.has(code), error);
}

function numberField(value: unknown, key: string): number | undefined {
  if (typeof value !== 'object' || value === null || !(key in value)) return undefined;
  const field: unknown = Reflect.get(value, key);
  return typeof field === 'number' ? field : undefined;
}

function stringField(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null || !(key in value)) return undefined;
  const field: unknown = Reflect.get(value, key);
  return typeof field === 'string' ? field : undefined;
}
