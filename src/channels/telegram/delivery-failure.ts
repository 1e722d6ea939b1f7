// How a failed Bot API call reaches the channel core: a DeliveryFailure, retryable on 429, 5xx and network failures.
import { GrammyError, HttpError } from 'grammy';
import type { DeliveryFailure } from '../types.js';

export class TelegramDeliveryFailure extends Error implements DeliveryFailure {
  declare readonly retryAfterMs?: number;

  constructor(
    message: string,
    readonly retryable: boolean,
    retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'TelegramDeliveryFailure';
    // Only a wait Telegram named is a property at all: the core tells "no wait named" from a wait by its presence.
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
  }
}

/** Telegram's "Too Many Requests": it names its wait in `parameters.retry_after`, in seconds. */
const TOO_MANY_REQUESTS = 429;
const FIRST_SERVER_ERROR = 500;

/** The wait Telegram asked for, in ms, when `error` is a 429 that named one. */
export function retryAfterMsOf(error: unknown): number | undefined {
  if (!(error instanceof GrammyError) || error.error_code !== TOO_MANY_REQUESTS) return undefined;
  const seconds = error.parameters.retry_after;
  return seconds === undefined ? undefined : seconds * 1000;
}

/**
 * A grammy error as a DeliveryFailure. The messages grammy builds name the method and Telegram's description, never
 * the URL, so the bot token does not reach logs or the core; grammy's error is not kept as the cause, since it holds
 * the call's payload (the message text) and logs never carry message bodies.
 */
export function toDeliveryFailure(error: unknown): TelegramDeliveryFailure {
  if (error instanceof TelegramDeliveryFailure) return error;
  if (error instanceof GrammyError) {
    const retryable = error.error_code === TOO_MANY_REQUESTS || error.error_code >= FIRST_SERVER_ERROR;
    return new TelegramDeliveryFailure(error.message, retryable, retryAfterMsOf(error));
  }
  // HttpError: no Bot API answer at all (refused, reset, timed out, or a body that is not the API's JSON).
  if (error instanceof HttpError) return new TelegramDeliveryFailure(error.message, true);
  return new TelegramDeliveryFailure('Telegram call failed', true);
}

/** Calls the Bot API, throwing a DeliveryFailure when it fails. */
export async function deliver<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toDeliveryFailure(error);
  }
}
