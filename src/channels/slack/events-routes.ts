// Events API mode's HTTP endpoints, mounted by the core under /channels/<id>/: POST slack/events (JSON) and POST
// slack/interactive (form `payload=`), both verified against the signing secret over the exact bytes received,
// answered at once (Slack wants its 200 within 3 s) after the events were emitted.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { publicMessage, toGatewayError } from '../../errors.js';
import { logHttpError, parseJsonBody, prepareErrorReply } from '../../server/index.js';
import type { RouteRegistrar } from '../../capability.js';
import { handleEventsPayload, handleInteractivePayload, type InboundContext } from './inbound.js';
import { verifySlackSignature } from './signature.js';
import { slackPayloadInvalid } from './slack-errors.js';

/** Slack's event and interaction payloads are a few kilobytes; this is ample and bounds what is read. */
export const SLACK_BODY_LIMIT_BYTES = 1_048_576;

export interface EventsRoutesDeps {
  signingSecret: string;
  now: () => number;
  log: Logger;
  /** The inbound context while the adapter runs; undefined before start and after stop (answered 503). */
  context(): InboundContext;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

export function slackEventsRoutes({ signingSecret, now, log, context }: EventsRoutesDeps): RouteRegistrar {
  function verifiedBody(request: FastifyRequest): string {
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    verifySlackSignature(
      signingSecret,
      {
        timestamp: header(request, 'x-slack-request-timestamp'),
        signature: header(request, 'x-slack-signature'),
        rawBody,
      },
      now(),
    );
    return rawBody.toString('utf8');
  }

  return function registerSlackRoutes(scope: FastifyInstance) {
    // The signature covers the exact bytes sent, so bodies stay raw until they are verified.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: SLACK_BODY_LIMIT_BYTES }, (_request, body, done) =>
      done(null, body),
    );
    scope.setErrorHandler(function slackRouteError(error, request, reply: FastifyReply) {
      const mapped = toGatewayError(error);
      logHttpError(log, request, error, mapped);
      prepareErrorReply(reply, mapped);
      return reply.send({ error: { code: mapped.kind, message: publicMessage(mapped) } });
    });

    scope.post('/slack/events', async function slackEvents(request, reply) {
      const text = verifiedBody(request);
      const inbound = context();
      const answer = handleEventsPayload(parseJsonBody(text), inbound);
      return answer === undefined ? reply.code(200).send() : reply.code(200).send(answer);
    });

    scope.post('/slack/interactive', async function slackInteractive(request, reply) {
      const text = verifiedBody(request);
      const inbound = context();
      const payload = new URLSearchParams(text).get('payload');
      if (payload === null) throw slackPayloadInvalid('form field payload missing');
      handleInteractivePayload(parseJsonBody(payload), inbound);
      return reply.code(200).send();
    });
  };
}
