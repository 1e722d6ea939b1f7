// POST /hooks/webhook: HMAC-signed events answered 202 at once; the agent turn runs in the background as a webhook run.
import type { ParsedSessionKey } from '../sessions/types.js';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { GatewaySection } from '../config/index.js';
import { duplicateDelivery, GatewayError, maskUnknown, publicMessage } from '../errors.js';
import { formatParamIssues } from '../rpc/index.js';
import { parseJsonBody } from '../server/index.js';
import type { RunControl, RunHandle } from '../runs/index.js';
import { turnRunOutcome, undoneTaskError, type TurnResult, type TurnRunner } from '../turns/index.js';
import { makeSessionKey, WEBHOOK_CALLER, WEBHOOK_OWNER_ID } from '../sessions/index.js';
import { webhookMessage } from './webhook-message.js';
import { createReplayCache, REPLAY_WINDOW_MS } from './webhook-replay.js';

type WebhookConfig = NonNullable<GatewaySection['webhook']>;

export interface WebhookDeps {
  /** gateway.webhook as the config is now; undefined: the route answers as an unknown route does. */
  webhook: () => WebhookConfig | undefined;
  runner: TurnRunner;
  /** Records each delivery's turn as a run of kind `webhook` (run.get, run.list, session.run_status) and can stop it. */
  runControl: Pick<RunControl, 'startRun'>;
  /**
   * Pushes `session.completed` to the admin tokens' sockets: a webhook session is owned by no token (WEBHOOK_OWNER_ID),
   * so only admins may read it.
   */
  notifyAdmins: (method: string, params: unknown) => void;
  log: Logger;
  now: () => number;
  shutdownSignal: AbortSignal;
}

/** DESIGN §3: a signed timestamp may differ from the server clock by at most this much. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

const webhookBody = z.strictObject({
  event: z.string().min(1).max(200),
  source: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^:]+$/, 'must not contain ":"')
    .optional(),
  data: z.unknown(),
});

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Checks `X-Webhook-Signature` (`sha256=<hex>` or bare hex) against the HMAC of the raw body, or of
 * `<timestamp>.<body>` when `X-Webhook-Timestamp` is sent. Throws `unauthorized` on any mismatch; returns the
 * verified HMAC as lowercase hex, the delivery's identity for replay detection however the sender spelled it.
 */
export function verifySignature(
  request: FastifyRequest,
  rawBody: Buffer,
  { secret, algorithm }: Pick<WebhookConfig, 'secret' | 'algorithm'>,
  nowMs: number,
): string {
  const signature = header(request, 'x-webhook-signature');
  if (signature === undefined) throw new GatewayError('unauthorized', 'Missing X-Webhook-Signature header');
  const timestamp = header(request, 'x-webhook-timestamp');
  const hmac = createHmac(algorithm, secret);
  if (timestamp !== undefined) {
    const seconds = Number(timestamp);
    if (!Number.isInteger(seconds) || Math.abs(nowMs / 1000 - seconds) > TIMESTAMP_TOLERANCE_SECONDS) {
      throw new GatewayError(
        'unauthorized',
        `X-Webhook-Timestamp must be unix seconds within ${TIMESTAMP_TOLERANCE_SECONDS} s of the server clock`,
      );
    }
    hmac.update(`${timestamp}.`);
  }
  const expected = hmac.update(rawBody).digest();
  const hex = signature.startsWith(`${algorithm}=`) ? signature.slice(algorithm.length + 1) : signature;
  const presented = /^[0-9a-fA-F]+$/.test(hex) ? Buffer.from(hex, 'hex') : Buffer.alloc(0);
  // timingSafeEqual needs equal lengths; a wrong length is already a mismatch and says nothing about the secret.
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    throw new GatewayError('unauthorized', 'Invalid webhook signature');
  }
  return expected.toString('hex');
}

/** The session.completed result of a webhook turn, as admins' sockets have always received it. */
function completion(result: TurnResult | undefined, failure: string | undefined) {
  if (result === undefined) return { response: '', finishReason: 'error', error: failure ?? '' };
  return {
    response: result.response,
    tokensUsed: result.tokensUsed,
    finishReason: result.finishReason,
    ...(result.error === undefined ? {} : { error: result.error }),
  };
}

export async function registerWebhookRoute(app: FastifyInstance, deps: WebhookDeps): Promise<void> {
  const { runner, runControl, notifyAdmins, log, now, shutdownSignal } = deps;
  const accepted = createReplayCache({ now });
  /** Turns still running; shutdown waits for each to record its run's outcome before the store closes. */
  const inFlight = new Set<Promise<void>>();

  async function execute(
    webhook: WebhookConfig,
    runId: string,
    key: ParsedSessionKey,
    message: string,
    run: RunHandle,
  ): Promise<void> {
    const { sessionKey } = key;
    let result: TurnResult | undefined;
    let failure: string | undefined;
    try {
      // The key holds a fresh run id: no other turn can hold it (no lock), and it squats no one's conversation.
      result = await runner.run({
        agentId: webhook.agentId,
        ...key,
        message,
        caller: WEBHOOK_CALLER,
        isKeyUnique: true,
        rootRunId: runId,
        signal: AbortSignal.any([run.signal, shutdownSignal]),
      });
      failure = undoneTaskError(result);
    } catch (error) {
      failure = publicMessage(maskUnknown(error, log, { runId }, 'webhook turn failed'));
    }
    await run.finish(turnRunOutcome(result, failure));
    notifyAdmins('session.completed', { sessionKey, runId, result: completion(result, failure) });
  }

  await app.register(async function webhookPlugin(scope) {
    // The signature covers the exact bytes sent, so the body is kept raw and parsed only after verification.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.addHook('onClose', async function waitForWebhookRuns() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    });
    // Before the body is read and before the route's rate limit counts it, exactly as for a route that does not exist.
    scope.addHook('onRequest', async function unmountedWebhook(_request, reply) {
      if (deps.webhook() !== undefined) return;
      reply.callNotFound();
      return reply;
    });

    scope.post('/hooks/webhook', async function receiveWebhook(request, reply) {
      const webhook = deps.webhook();
      if (webhook === undefined) return reply.callNotFound();
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signature = verifySignature(request, rawBody, webhook, now());
      // Checked before parsing so a replay costs no work; remembered only once the delivery is accepted below.
      if (accepted.has(signature)) throw duplicateDelivery(REPLAY_WINDOW_MS / 60_000);
      const document = parseJsonBody(rawBody.toString('utf8'), {
        syntaxMessage: 'Body must be JSON: {event, source?, data}',
      });
      const parsed = webhookBody.safeParse(document);
      if (!parsed.success) {
        const { text, param } = formatParamIssues(parsed.error.issues);
        throw new GatewayError(
          'invalid_request',
          `Invalid webhook body: ${text}`,
          param === undefined ? {} : { param },
        );
      }
      // Measured on the message itself, not the body: pretty-printing is what multiplied a small body.
      const message = webhookMessage(parsed.data, webhook.maxMessageChars);
      if (message === undefined) {
        throw new GatewayError(
          'payload_too_large',
          `The agent message built from this event exceeds gateway.webhook.maxMessageChars (${webhook.maxMessageChars} characters)`,
        );
      }
      const runId = randomUUID();
      const key = makeSessionKey({ userId: parsed.data.source ?? 'webhook', channelId: 'webhook', peerId: runId });
      const { sessionKey } = key;
      // Recorded before it is answered, so the runId in the answer can be looked up at once; a delivery whose run
      // could not be recorded is not remembered, and the sender's retry is not taken for a replay.
      const run = await runControl.startRun({
        runId,
        rootRunId: runId,
        kind: 'webhook',
        agentId: webhook.agentId,
        sessionKey,
        task: message,
        requestedBy: WEBHOOK_OWNER_ID,
      });
      accepted.remember(signature);
      const task = execute(webhook, runId, key, message, run)
        .catch((error: unknown) =>
          log.error({ err: error, runId }, 'webhook run outcome could not be recorded or announced'),
        )
        .finally(() => inFlight.delete(task));
      inFlight.add(task);
      return reply.code(202).send({ accepted: true, runId, sessionKey });
    });
  });
}
