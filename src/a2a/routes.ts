// The A2A HTTP surface: the gateway's and each exposed agent's card (public, as discovery is), and the JSON-RPC binding
// at POST /a2a/<agentId> (bearer token with rpc; A2A-Version checked), answering JSON or, for streams, SSE.
import { Extensions, type AgentCard } from '@a2a-js/sdk';
import { JsonRpcTransportHandler, ServerCallContext, type A2ARequestHandler } from '@a2a-js/sdk/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { RouteRegistrar } from '../capability.js';
import { a2aAgentNotExposed, a2aVersionNotSupported } from '../errors.js';
import {
  endStreamsOnClose,
  grantsRest,
  openSseStream,
  parseJsonBody,
  type RequestAuth,
  type SseStream,
} from '../server/index.js';
import type { Caller } from '../server/types.js';
import { A2A_VERSION, agentCard, cardJson, CARD_PATH, gatewayCard, type CardAgent } from './cards.js';
import { toA2aError } from './wire-errors.js';

export interface A2aRouteDeps {
  auth: RequestAuth;
  /** The exposed agents that exist, in a2a.expose order. */
  exposed: () => CardAgent[];
  version: string;
  handlerFor: (agentId: string, caller: Caller, card: AgentCard, hangUp: AbortSignal) => A2ARequestHandler;
  log: Logger;
}

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

export function a2aRoutes(deps: A2aRouteDeps): RouteRegistrar {
  const onRequest = deps.auth.require({ grants: grantsRest });
  const openStreams = new Set<Pick<SseStream, 'close'>>();

  function exposedAgent(agentId: string): CardAgent {
    const agent = deps.exposed().find((candidate) => candidate.id === agentId);
    if (agent === undefined) throw a2aAgentNotExposed(agentId);
    return agent;
  }

  async function stream(reply: FastifyReply, id: string | number | null, events: AsyncGenerator<unknown, void>) {
    // A refusal before the first event (bad params, a limit) is answered as a plain JSON-RPC error.
    let first: IteratorResult<unknown, void>;
    try {
      first = await events.next();
    } catch (error) {
      return reply.send({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(toA2aError(error)) });
    }
    const sse = openSseStream(reply, openStreams);
    try {
      if (first.done !== true) await sse.write({ data: JSON.stringify(first.value) });
      for await (const event of events) if (!(await sse.write({ data: JSON.stringify(event) }))) break;
    } catch (error) {
      const mapped = JsonRpcTransportHandler.mapToJSONRPCError(toA2aError(error));
      await sse.write({ data: JSON.stringify({ jsonrpc: '2.0', id, error: mapped }) });
    } finally {
      sse.close();
    }
    return reply;
  }

  return function registerA2aRoutes(scope) {
    endStreamsOnClose(scope, openStreams);
    // A2A v1.0 names its own media type; JSON-RPC clients (the SDK's among them) also send application/json.
    scope.addContentTypeParser('application/a2a+json', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')));
      } catch (error) {
        done(error instanceof Error ? error : new Error(String(error)), undefined);
      }
    });

    scope.get(CARD_PATH, async function gatewayAgentCard(request) {
      const agents = deps.exposed();
      if (agents.length === 0) throw a2aAgentNotExposed('(none: a2a.expose is empty)');
      return cardJson(gatewayCard(baseUrlOf(request), deps.version, agents));
    });

    scope.get<{ Params: { agentId: string } }>(`/a2a/:agentId${CARD_PATH}`, async function exposedAgentCard(request) {
      const agent = exposedAgent(request.params.agentId);
      return cardJson(agentCard(baseUrlOf(request), deps.version, agent));
    });

    scope.post<{ Params: { agentId: string } }>(
      '/a2a/:agentId',
      { onRequest },
      async function a2aJsonRpc(request, reply) {
        const agent = exposedAgent(request.params.agentId);
        const { body } = request;
        const id = idOf(body);
        // One request object per call: a batch or a bare value is no JSON-RPC request A2A defines.
        if (!isRecord(body))
          return reply.send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid JSON-RPC request' } });
        const version = requestedVersion(request);
        if (!SUPPORTED_VERSION.test(version)) {
          const error = JsonRpcTransportHandler.mapToJSONRPCError(
            toA2aError(a2aVersionNotSupported(version, A2A_VERSION)),
          );
          return reply.send({ jsonrpc: '2.0', id, error });
        }
        const hangUp = new AbortController();
        reply.raw.once('close', () => hangUp.abort());
        const card = agentCard(baseUrlOf(request), deps.version, agent);
        const handler = deps.handlerFor(agent.id, deps.auth.callerOf(request), card, hangUp.signal);
        const context = new ServerCallContext({
          user: { isAuthenticated: true, userName: deps.auth.callerOf(request).clientId },
          requestedVersion: version,
          requestedExtensions: Extensions.parseServiceParameter(header(request, 'a2a-extensions')),
        });
        const answer = await new JsonRpcTransportHandler(handler).handle(body, context);
        if (isAsyncIterable(answer)) return stream(reply, id, answer);
        return reply.send(answer);
      },
    );
  };
}
