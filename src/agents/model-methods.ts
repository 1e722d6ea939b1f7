// agent.getOperationModels and agent.cacheStats (admin): which models an agent uses, and its prompt-cache hits.
import { z } from 'zod';
import type { GatewayConfig } from '../config/index.js';
import { notFound } from '../errors.js';
import { describeOperationModels, type Embedder, type GatewayModelRouter } from '../providers/index.js';
import { defineMethod } from '../rpc/index.js';
import type { AgentRegistry } from './types.js';

export interface AgentModelMethodsDeps {
  agents: AgentRegistry;
  router: GatewayModelRouter;
  /** The `embeddings:` section, or a getter for it so a config.patch shows at once. */
  embeddings: GatewayConfig['embeddings'] | (() => GatewayConfig['embeddings']);
  /** The offline embedder memory falls back to when `embeddings:` is not configured. */
  builtinEmbedder: Pick<Embedder, 'model'>;
}

const agentId = z.string().min(1);

export function agentModelMethods({ agents, router, embeddings, builtinEmbedder }: AgentModelMethodsDeps) {
  const agentOrThrow = (id: string) => {
    const agent = agents.get(id);
    if (agent === undefined) throw notFound(`Unknown agent '${id}'`, { param: 'agentId' });
    return agent;
  };
  return [
    defineMethod({
      name: 'agent.getOperationModels',
      scope: 'admin',
      summary: "The model, provider and source behind each of an agent's operations (chat, compaction, embedding).",
      params: z.strictObject({ agentId }),
      handler: ({ agentId: id }) => {
        const section = typeof embeddings === 'function' ? embeddings() : embeddings;
        return describeOperationModels(id, agentOrThrow(id).config, router, section, builtinEmbedder.model);
      },
    }),
    defineMethod({
      name: 'agent.cacheStats',
      scope: 'admin',
      summary: 'Prompt-cache hits, misses, hit rate and cached tokens seen by the model router, for one agent or all.',
      params: z.strictObject({ agentId: agentId.optional() }),
      handler: ({ agentId: id }) => {
        if (id !== undefined) agentOrThrow(id);
        return router.cacheStats(id);
      },
    }),
  ];
}
