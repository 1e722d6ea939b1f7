// Slack's failures in the channel contract's terms: a DeliveryFailure per Web API error, and the refusals of the
// Events API routes and of channels.test as GatewayErrors.
import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } from '@slack/web-api';
import { GatewayError } from '../../errors.js';
import type { DeliveryFailure } from '../types.js';

/** Platform errors (`ok: false`) Slack documents as transient: the same call may succeed later. */
const TRANSIENT_PLATFORM_ERRORS = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'ratelimited',
]);

export class SlackDeliveryFailure extends Error implements DeliveryFailure {
  readonly retryable: boolean;
  readonly retryAfterMs?: number;

  constructor(message: string, retryable: boolean, retryAfterMs?: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SlackDeliveryFailure';
    this.retryable = retryable;
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
  }
}

/**
 * Classifies what the Web API client threw: 429 (its Retry-After in ms), 5xx, network failures and Slack's transient
 * platform errors are retryable; any other HTTP status or platform error (channel_not_found, not_in_channel,
 * invalid_auth …) is not, since repeating the call cannot change the answer.
 */
export function toDeliveryFailure(error: unknown): SlackDeliveryFailure {
  if (error instanceof SlackDeliveryFailure) return error;
  const options = { cause: error };
  if (error instanceof WebAPIRateLimitedError) {
    const retryAfterMs =
      Number.isFinite(error.retryAfter) && error.retryAfter >= 0 ? error.retryAfter * 1000 : undefined;
    return new SlackDeliveryFailure(
      `Slack rate limited the call (retry after ${error.retryAfter} s)`,
      true,
      retryAfterMs,
      options,
    );
  }
  if (error instanceof WebAPIHTTPError) {
    const retryable = error.statusCode === 429 || error.statusCode >= 500;
    return new SlackDeliveryFailure(`Slack answered HTTP ${error.statusCode}`, retryable, undefined, options);
  }
  if (error instanceof WebAPIPlatformError) {
    const code = error.data.error;
    return new SlackDeliveryFailure(
      `Slack refused the call: ${code}`,
      TRANSIENT_PLATFORM_ERRORS.has(code),
      undefined,
      options,
    );
  }
  if (error instanceof WebAPIRequestError) {
    return new SlackDeliveryFailure(`Slack could not be reached: ${error.original.message}`, true, undefined, options);
  }
  // A 429 without a usable Retry-After, an abort or a timeout: nothing says the next attempt fails too.
  const message = error instanceof Error ? error.message : 'unknown failure';
  return new SlackDeliveryFailure(`Slack call failed: ${message}`, true, undefined, options);
}

/** Whether a failure says the credentials are wrong (health shows it at once; retrying will not fix it). */
export function isAuthFailure(failure: SlackDeliveryFailure): boolean {
  return /\b(invalid_auth|not_authed|token_revoked|token_expired|account_inactive)\b/.test(failure.message);
}

export const slackSignatureInvalid = (reason: string) =>
  new GatewayError('unauthorized', `Slack request signature rejected: ${reason}`);

export const slackPayloadInvalid = (reason: string) =>
  new GatewayError('invalid_request', `Slack payload not understood: ${reason}`);

export const slackAdapterStopped = () =>
  new GatewayError('unavailable', 'This Slack connection is not running', { retryAfterMs: 5_000 });

export const slackAttachmentTooLarge = (maxBytes: number) =>
  new GatewayError('payload_too_large', `The Slack file is larger than ${maxBytes} bytes`);

export const slackTestFailed = (failure: SlackDeliveryFailure) =>
  new GatewayError('upstream_failed', `Slack auth.test failed: ${failure.message}`, {}, { cause: failure });

export const slackConfigIncomplete = (field: string, mode: string) =>
  new GatewayError('invalid_request', `A Slack channel in ${mode} mode needs ${field}`, { param: field });

export const slackFileUnavailable = (status: number) =>
  new GatewayError('upstream_failed', `Slack file download answered HTTP ${status}`);
