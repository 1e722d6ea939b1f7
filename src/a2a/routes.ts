// The A2A HTTP surface: the gateway's and each exposed agent's card (public, as discovery is), and the JSON-RPC binding
// at POST /a2a/<agentId> (bearer token with rpc). The routes are registered at start; what answers them (the A2A SDK
// and the tasks) is loaded at the first request for an exposed agent, so a gateway that exposes none never loads it.
import type { RouteRegistrar } from '../capability.js';
import { a2aAgentNotExposed } from '../errors.js';
import { endStreamsOnClose, grantsRest, parseJsonBody, type RequestAuth, type SseStream } from '../server/index.js';
import { CARD_PATH, type CardAgent } from './card-agent.js';
import type { A2aServing } from './types.js';

export interface A2aRouteDeps {
  auth: RequestAuth;
  /** The exposed agents that exist, in a2a.expose order. */
  exposed: () => CardAgent[];
  /** What answers the routes, loaded on first use. */
  serving: () => Promise<A2aServing>;
}

export function a2aRoutes(deps: A2aRouteDeps): RouteRegistrar {
  const onRequest = deps.auth.require({ grants: grantsRest });
  const openStreams = new Set<Pick<SseStream, 'close'>>();

  function exposedAgent(agentId: string): CardAgent {
    const agent = deps.exposed().find((candidate) => candidate.id === agentId);
    if (agent === undefined) throw a2aAgentNotExposed(agentId);
    return agent;
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
      return (await deps.serving()).gatewayCard(request, agents);
    });

    scope.get<{ Params: { agentId: string } }>(`/a2a/:agentId${CARD_PATH}`, async function exposedAgentCard(request) {
      const agent = exposedAgent(request.params.agentId);
      return (await deps.serving()).agentCard(request, agent);
    });

    scope.post<{ Params: { agentId: string } }>(
      '/a2a/:agentId',
      { onRequest },
      async function a2aJsonRpc(request, reply) {
        const agent = exposedAgent(request.params.agentId);
        return (await deps.serving()).jsonRpc(request, reply, agent, openStreams);
      },
    );
  };
}
