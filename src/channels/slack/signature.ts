// Slack's request signing (v0): X-Slack-Signature is the HMAC-SHA256 of `v0:<timestamp>:<raw body>` with the app's
// signing secret; X-Slack-Request-Timestamp must be recent so a captured request cannot be replayed later.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { slackSignatureInvalid } from './slack-errors.js';

/** Slack's own advice: refuse requests whose timestamp is more than five minutes from the local clock. */
export const SLACK_TIMESTAMP_TOLERANCE_SECONDS = 300;

export interface SignedRequest {
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
}

/** Throws `unauthorized` unless the request is signed with `signingSecret` within the tolerance of `nowMs`. */
export function verifySlackSignature(
  signingSecret: string,
  { timestamp, signature, rawBody }: SignedRequest,
  nowMs: number,
): void {
  if (timestamp === undefined || signature === undefined) throw slackSignatureInvalid('signature headers missing');
  const seconds = Number(timestamp);
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowMs / 1000 - seconds) > SLACK_TIMESTAMP_TOLERANCE_SECONDS) {
    throw slackSignatureInvalid(`timestamp not within ${SLACK_TIMESTAMP_TOLERANCE_SECONDS} s of the server clock`);
  }
  const expected = createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(rawBody).digest();
  const hex = signature.startsWith('v0=') ? signature.slice('v0='.length) : '';
  const presented = /^[0-9a-fA-F]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : Buffer.alloc(0);
  // timingSafeEqual needs equal lengths; a wrong length is already a mismatch and says nothing about the secret.
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    throw slackSignatureInvalid('signature mismatch');
  }
}
