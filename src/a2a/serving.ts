// What answers the A2A routes, loaded at the first request for an exposed agent: the cards, the JSON-RPC binding (the
// SDK's transport handler, answering JSON or, for streams, SSE; A2A-Version checked) and the tasks it runs.
import { Extensions } from '@a2a-js/sdk';
import { JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { a2aVersionNotSupported } from '../errors.js';
import { openSseStream, type SseStream } from '../server/index.js';
import { A2A_VERSION, agentCard, cardJson, gatewayCard } from './cards.js';
import { createRequestHandler } from './request-handler.js';
import { createTaskRunner } from './task-runner.js';
import { createTaskStore } from './task-store.js';
import type { A2aModuleDeps, A2aServing } from './types.js';
import { toA2aError } from './wire-errors.js';

/** Accepted A2A-Version values: Major.Minor 1.0 (a patch part is tolerated, A2A v1.0 §3.6). */
const SUPPORTED_VERSION = /^1\.0(\.\d+)?$/;

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** The A2A-Version of the request: the header, else the query parameter; absent or empty means 0.3 (A2A v1.0 §3.6). */
function requestedVersion(request: FastifyRequest): string {
  const query = request.query;
  const fromQuery =
    typeof query === 'object' && query !== null && 'A2A-Version' in query ? query['A2A-Version'] : undefined;
  const value = header(request, 'a2a-version') ?? (typeof fromQuery === 'string' ? fromQuery : undefined);
  return value?.trim() ?? '';
}

const baseUrlOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

function idOf(body: unknown): string | number | null {
  if (typeof body !== 'object' || body === null || !('id' in body)) return null;
  const { id } = body;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isAsyncIterable(value: unknown): value is AsyncGenerator<unknown, void, undefined> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

const errorOf = (error: unknown) => JsonRpcTransportHandler.mapToJSONRPCError(toA2aError(error));

async function stream(
  reply: FastifyReply,
  id: string | number | null,
  events: AsyncGenerator<unknown, void>,
  openStreams: Set<Pick<SseStream, 'close'>>,
) {
  // A refusal before the first event (bad params, a limit) is answered as a plain JSON-RPC error.
  let first: IteratorResult<unknown, void>;
  try {
    first = await events.next();
  } catch (error) {
    return reply.send({ jsonrpc: '2.0', id, error: errorOf(error) });
  }
  const sse = openSseStream(reply, openStreams);
  try {
    if (first.done !== true) await sse.write({ data: JSON.stringify(first.value) });
    for await (const event of events) if (!(await sse.write({ data: JSON.stringify(event) }))) break;
  } catch (error) {
    await sse.write({ data: JSON.stringify({ jsonrpc: '2.0', id, error: errorOf(error) }) });
  } finally {
    sse.close();
  }
  return reply;
}

export function createA2aServing(deps: A2aModuleDeps): A2aServing {
  const limits = () => deps.config().limits;
  const store = createTaskStore({
    port: deps.store.a2aTasks,
    runEnd: async (runId) => {
      const run = await deps.store.runs.get(runId);
      return run === undefined ? undefined : { status: run.status, completedAt: run.completedAt };
    },
    now: deps.now,
    maxTasksKept: () => limits().maxTasksKept,
    log: deps.log,
  });
  const runner = createTaskRunner({
    store,
    turns: deps.turns,
    runControl: deps.runControl,
    events: deps.events,
    limits,
    now: deps.now,
    newId: deps.newId,
    log: deps.log,
  });

  return {
    gatewayCard: (request, agents) => cardJson(gatewayCard(baseUrlOf(request), deps.version, agents)),
    agentCard: (request, agent) => cardJson(agentCard(baseUrlOf(request), deps.version, agent)),
    async jsonRpc(request, reply, agent, openStreams) {
      const { body } = request;
      const id = idOf(body);
      // One request object per call: a batch or a bare value is no JSON-RPC request A2A defines.
      if (!isRecord(body))
        return reply.send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid JSON-RPC request' } });
      const version = requestedVersion(request);
      if (!SUPPORTED_VERSION.test(version))
        return reply.send({ jsonrpc: '2.0', id, error: errorOf(a2aVersionNotSupported(version, A2A_VERSION)) });
      const hangUp = new AbortController();
      reply.raw.once('close', () => hangUp.abort());
      const caller = deps.auth.callerOf(request);
      const card = agentCard(baseUrlOf(request), deps.version, agent);
      const handler = createRequestHandler({
        agentId: agent.id,
        caller,
        card,
        store,
        runner,
        limits: limits(),
        hangUp: hangUp.signal,
      });
      const context = new ServerCallContext({
        user: { isAuthenticated: true, userName: caller.clientId },
        requestedVersion: version,
        requestedExtensions: Extensions.parseServiceParameter(header(request, 'a2a-extensions')),
      });
      const answer = await new JsonRpcTransportHandler(handler).handle(body, context);
      if (isAsyncIterable(answer)) return stream(reply, id, answer, openStreams);
      return reply.send(answer);
    },
    async close() {
      await runner.close();
      await store.flush();
    },
  };
}
