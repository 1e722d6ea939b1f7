// POST /api/chat, GET /api/chat/stream (SSE token/tool/done) and GET /api/chat/history for the dashboard's chat.
import type { ParsedSessionKey } from '../../sessions/types.js';
import type { Caller } from '../../server/types.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { agentNotFound, agentSuspended, publicMessage } from '../../errors.js';
import { grantsRest } from '../../server/index.js';
import { requestSignal, openSseStream } from '../../server/index.js';
import { turnReply, type TurnRequest } from '../../turns/index.js';
import {
  assertSessionAccess,
  channelOf,
  makeSessionKey,
  readSessionKey,
  sessionCallerOf,
} from '../../sessions/index.js';
import { streamTurn } from '../turn-stream.js';
import type { RestContext } from './types.js';
import { parseInput } from './validation.js';

/** The channel part of REST session keys: `default:<clientId>:rest` (DESIGN §3 "string session keys"). */
export const REST_CHANNEL_ID = 'rest';

/** Most messages GET /api/chat/history returns (the newest ones). */
export const MAX_HISTORY_MESSAGES = 200;

const keyPart = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^:]+$/, 'must not contain ":"');

const chatBody = z.strictObject({
  message: z.string().min(1, 'must not be empty').max(1_000_000),
  agentId: z.string().min(1).optional(),
  sessionKey: z.string().min(1).optional(),
});

const streamQuery = z.strictObject({
  message: z.string().min(1, 'must not be empty').max(100_000),
  agentId: z.string().min(1).optional(),
  sessionKey: z.string().min(1).optional(),
  // EventSource cannot set headers; the token rides in the query (spec "Authentication").
  token: z.string().optional(),
});

const historyQuery = z.strictObject({ channelId: keyPart.optional() });

/** A token id with ':' would split the key; it only ever names the caller here, so ':' becomes '_'. */
function userPart(clientId: string): string {
  return clientId.replaceAll(':', '_');
}

export function restSessionKey(clientId: string, channelId = REST_CHANNEL_ID): ParsedSessionKey {
  return makeSessionKey({ userId: userPart(clientId), channelId });
}

async function chatTurn(
  ctx: RestContext,
  input: { message: string; agentId?: string | undefined; sessionKey?: string | undefined },
  requester: Caller,
) {
  if (input.agentId !== undefined) {
    const agent = ctx.agents.get(input.agentId);
    if (agent === undefined) throw agentNotFound(input.agentId);
    if (agent.status === 'suspended') throw agentSuspended(input.agentId);
  }
  const caller = sessionCallerOf(requester);
  const key =
    input.sessionKey === undefined
      ? restSessionKey(requester.clientId)
      : readSessionKey(input.sessionKey, 'sessionKey');
  // Checked here too so a stream is refused with 403 before its headers go out; the turn checks again under the lock.
  const existing = await ctx.sessions.get(key.sessionKey);
  if (existing !== undefined) assertSessionAccess(existing, caller);
  const turn: Omit<TurnRequest, 'signal' | 'onDelta'> = {
    ...key,
    message: input.message,
    caller,
    ...(input.agentId === undefined ? {} : { agentId: input.agentId }),
  };
  return turn;
}

export function registerChatRoutes(scope: FastifyInstance, ctx: RestContext): void {
  const requireRest = ctx.auth.require({ grants: grantsRest });
  const requireRestSse = ctx.auth.require({ grants: grantsRest, allowQueryToken: true });

  scope.post('/chat', { onRequest: requireRest }, async function chat(request, reply) {
    const body = parseInput(chatBody, request.body);
    const turn = await chatTurn(ctx, body, ctx.auth.callerOf(request));
    const result = await ctx.runner.run({ ...turn, signal: requestSignal(reply, ctx.shutdownSignal) });
    return turnReply(result);
  });

  scope.get('/chat/stream', { onRequest: requireRestSse }, async function chatStream(request, reply) {
    // Only an EventSource reconnecting after the stream ended (done, error or a dropped connection) sends
    // Last-Event-ID here: a new stream never carries one. 204 makes it stop (WHATWG HTML, "Server-sent events")
    // instead of running the turn a second time (DESIGN §3 "SSE event ids").
    if (request.headers['last-event-id'] !== undefined) return reply.code(204).send();
    const query = parseInput(streamQuery, request.query);
    const turn = await chatTurn(ctx, query, ctx.auth.callerOf(request));
    const stream = openSseStream(reply, ctx.openStreams);
    // Frame ids are the trace id and a counter: unique per stream, and they make EventSource send Last-Event-ID.
    let frameCount = 0;
    const nextId = (): string => `${request.id}.${(frameCount += 1)}`;
    try {
      let accumulated = '';
      const outcome = await streamTurn(
        ctx,
        stream,
        turn,
        (delta) => {
          accumulated += delta;
          return { id: nextId(), event: 'token', data: JSON.stringify({ delta, accumulated }) };
        },
        undefined,
        (progress) => ({ id: nextId(), event: 'tool', data: JSON.stringify(progress) }),
      );
      if (outcome.ok) {
        await stream.write({ id: nextId(), event: 'done', data: JSON.stringify(turnReply(outcome.result)) });
      } else {
        // After the headers went out, a failure is an `error` event with the REST envelope.
        await stream.write({
          id: nextId(),
          event: 'error',
          data: JSON.stringify({ error: { code: outcome.error.kind, message: publicMessage(outcome.error) } }),
        });
      }
    } finally {
      stream.close();
    }
    return reply;
  });

  scope.get('/chat/history', { onRequest: requireRest }, async function chatHistory(request) {
    const { channelId = REST_CHANNEL_ID } = parseInput(historyQuery, request.query);
    // The sessions on that channel that the caller's token owns; a key naming the caller does not make it theirs.
    const sessions = (await ctx.sessions.list({ ownedBy: ctx.auth.callerOf(request).clientId })).filter(
      (session) => channelOf(session.sessionKey) === channelId,
    );
    const histories = await Promise.all(
      sessions.map(async (session) => ({
        session,
        history: await ctx.sessions.history(session.sessionKey, MAX_HISTORY_MESSAGES),
      })),
    );
    const messages = histories
      .flatMap(({ session, history }) =>
        history.flatMap((message) =>
          (message.role === 'user' || message.role === 'assistant') && message.content !== ''
            ? [
                {
                  sessionKey: session.sessionKey,
                  role: message.role,
                  content: message.content,
                  timestamp: message.timestamp,
                },
              ]
            : [],
        ),
      )
      .sort((a, b) => a.timestamp - b.timestamp)
      .slice(-MAX_HISTORY_MESSAGES);
    return { channelId, messages };
  });
}
