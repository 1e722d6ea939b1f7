// GET /v1/models and GET /v1/models/<provider>/<modelId>: the configured model catalog in OpenAI's model format.
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../errors.js';
import { formatModelRef, type ModelCatalogEntry } from '../../providers/index.js';
import type { OpenAiContext } from './types.js';

/** Spec "Model object": id `<provider>/<modelId>`, created always 0, owned_by the provider name. */
export function toOpenAiModel(entry: Pick<ModelCatalogEntry, 'provider' | 'modelId'>) {
  return { id: formatModelRef(entry), object: 'model', created: 0, owned_by: entry.provider };
}

export function registerModels(scope: FastifyInstance, ctx: OpenAiContext): void {
  scope.get('/models', async function listModels() {
    return { object: 'list', data: ctx.router.catalog().map(toOpenAiModel) };
  });

  // The id holds a slash, so a wildcard takes the rest of the path (spec route table, /v1/models/:model_id).
  scope.get<{ Params: { '*': string } }>('/models/*', async function retrieveModel(request) {
    const modelId = request.params['*'];
    const entry = ctx.router.catalog().find((candidate) => formatModelRef(candidate) === modelId);
    if (entry === undefined) throw notFound('Model not found', { param: 'model' });
    return toOpenAiModel(entry);
  });
}
