// GET /v1/models and GET /v1/models/<id>: the configured model catalog, then the agents, in OpenAI's model format.
import type { FastifyInstance } from 'fastify';
import { agentSuspended, notFound } from '../../errors.js';
import { formatModelRef, type ModelCatalogEntry } from '../../providers/index.js';
import { lookupModel } from './turn-input.js';
import type { OpenAiContext } from './types.js';

/** Spec "Model object": id `<provider>/<modelId>`, created always 0, owned_by the provider name. */
export function toOpenAiModel(entry: Pick<ModelCatalogEntry, 'provider' | 'modelId'>) {
  return { id: formatModelRef(entry), object: 'model', created: 0, owned_by: entry.provider };
}

/** DESIGN §3 "/v1/models": an agent is listed by its id, so UIs that pick from the list can choose it. */
export function agentAsModel(agentId: string) {
  return { id: agentId, object: 'model', created: 0, owned_by: 'agent' };
}

export function registerModels(scope: FastifyInstance, ctx: OpenAiContext): void {
  scope.get('/models', async function listModels() {
    // Suspended agents are left out: chat refuses them (409), so a UI must not offer them.
    const agents = ctx.agents.list().filter((agent) => agent.status === 'active');
    return {
      object: 'list',
      data: [...ctx.router.catalog().map(toOpenAiModel), ...agents.map((agent) => agentAsModel(agent.id))],
    };
  });

  // The id may hold slashes, so a wildcard takes the rest of the path (spec route table, /v1/models/:model_id).
  scope.get<{ Params: { '*': string } }>('/models/*', async function retrieveModel(request) {
    const modelId = request.params['*'];
    // Every name chat takes (an agent id, `<provider>/<modelId>`, a bare model id), read as chat reads it; the id
    // answered is the one asked for, as chat's `model` echoes the request's.
    const found = lookupModel(modelId, ctx);
    if (found === undefined) throw notFound('Model not found', { param: 'model' });
    if ('ref' in found) return { ...toOpenAiModel(found.ref), id: modelId };
    if (found.agent.status === 'suspended') throw agentSuspended(modelId, 'model');
    return agentAsModel(found.agent.id);
  });
}
