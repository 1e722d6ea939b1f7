// Webhook mode: POST /telegram (the core mounts it under /channels/<id>/). The secret token header is checked in
// constant time before the body is read; the update is handed on and answered 200 at once.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { RouteRegistrar } from '../../capability.js';
import { GatewayError } from '../../errors.js';
import { parseJsonBody } from '../../server/index.js';
import { updateEnvelope } from './updates.js';

export const WEBHOOK_PATH = '/telegram';
/** The header Telegram sends the setWebhook `secret_token` in. */
export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
/** Bytes of one webhook post; a Telegram update is a few kilobytes (file contents never come inline). */
export const WEBHOOK_MAX_BODY_BYTES = 1_048_576;

export interface WebhookRouteDeps {
  /** The configured secret; undefined refuses every post (webhook mode without a secret is not accepted). */
  secret: string | undefined;
  /** Hands the update on and returns at once; false while the adapter is not started (then 503, Telegram retries). */
  accept(update: unknown): boolean;
}

const badSecret = () => new GatewayError('unauthorized', 'Missing or wrong X-Telegram-Bot-Api-Secret-Token');
const notRunning = () =>
  new GatewayError('unavailable', 'This Telegram connection is not running', { retryAfterMs: 5_000 });
const notAnUpdate = () => new GatewayError('invalid_request', 'The body is not a Telegram update');

function isSecretMatch(presented: unknown, secret: string | undefined): boolean {
  if (secret === undefined || typeof presented !== 'string') return false;
  const known = Buffer.from(secret, 'utf8');
  const given = Buffer.from(presented, 'utf8');
  const isSameLength = given.length === known.length;
  // A presented secret of another length is compared as the known one against itself: the same work either way.
  const isEqual = timingSafeEqual(isSameLength ? given : known, known);
  return isSameLength && isEqual;
}

function bodyText(request: FastifyRequest): string {
  const { body } = request;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  return typeof body === 'string' ? body : '';
}

export function telegramWebhookRoutes({ secret, accept }: WebhookRouteDeps): RouteRegistrar {
  return async function registerTelegramWebhook(scope) {
    // Its own plugin: the raw body parser below stays inside it, whatever else the core mounts in the channel's scope.
    await scope.register(async function telegramWebhook(inner) {
      inner.removeAllContentTypeParsers();
      inner.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      inner.post(
        WEBHOOK_PATH,
        {
          bodyLimit: WEBHOOK_MAX_BODY_BYTES,
          // Before the body is read: a forged post costs no parsing.
          onRequest: async function checkTelegramSecret(request) {
            if (!isSecretMatch(request.headers[SECRET_HEADER], secret)) throw badSecret();
          },
        },
        async function telegramUpdate(request, reply) {
          const update: unknown = parseJsonBody(bodyText(request));
          if (!updateEnvelope.safeParse(update).success) throw notAnUpdate();
          if (!accept(update)) throw notRunning();
          return reply.code(200).send({ ok: true });
        },
      );
    });
  };
}
