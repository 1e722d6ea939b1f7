// Which model serves each of an agent's operations (chat, compaction, embedding), and where that choice came from.
import type { AgentConfig, GatewayConfig } from '../config/index.js';
import { formatModelRef, type ModelRef, type ModelRouter } from './types.js';
import type { GatewayModelRouter } from './model-router.js';

export type ModelSource = 'config' | 'default';

/**
 * The agent's primary model, by the rule the turn loop and compaction use: `provider` + `model` when both
 * are set, else `model` resolved through the catalog (`<provider>/<modelId>` or a listed bare id).
 */
export function resolveAgentModel(agent: AgentConfig, router: Pick<ModelRouter, 'resolve'>): ModelRef | undefined {
  if (agent.model === undefined) return undefined;
  if (agent.provider !== undefined) return { provider: agent.provider, modelId: agent.model };
  return router.resolve(agent.model);
}

export type OperationType = 'chat' | 'compaction' | 'embedding';

export interface OperationModel {
  operationType: OperationType;
  model: string | null;
  provider: string | null;
  source: ModelSource;
  tieringActive: boolean;
  timeoutMs: number | null;
  crossProvider: boolean;
  apiKeyConfigured: boolean;
}

export interface OperationModelsReport {
  agentId: string;
  primaryModel: string | null;
  providerFamily: string | null;
  tieringActive: boolean;
  operations: OperationModel[];
}

/** The id the hashing embedder reports; used when `embeddings:` is not configured. */
export const BUILTIN_EMBEDDER_PROVIDER = 'builtin';

export function describeOperationModels(
  agentId: string,
  agent: AgentConfig,
  router: GatewayModelRouter,
  embeddings: GatewayConfig['embeddings'],
  builtinEmbeddingModel: string,
): OperationModelsReport {
  const chat = resolveAgentModel(agent, router);
  // Compaction summarises with the agent's model, else the first catalog model (sessions/compaction.ts).
  const firstListed = router.catalog()[0];
  const compaction =
    chat ?? (firstListed === undefined ? undefined : { provider: firstListed.provider, modelId: firstListed.modelId });
  const primaryInfo = chat === undefined ? undefined : router.providerInfo(chat.provider);
  const onModel = (operationType: OperationType, ref: ModelRef | undefined, source: ModelSource): OperationModel => {
    const info = ref === undefined ? undefined : router.providerInfo(ref.provider);
    return {
      operationType,
      model: ref === undefined ? null : formatModelRef(ref),
      provider: ref?.provider ?? null,
      source,
      // No tiering is configured: every operation runs on its one model.
      tieringActive: false,
      timeoutMs: info?.timeoutMs ?? null,
      crossProvider: chat !== undefined && ref !== undefined && ref.provider !== chat.provider,
      apiKeyConfigured: info?.isApiKeyConfigured ?? false,
    };
  };

  let embedding: OperationModel;
  if (embeddings === undefined) {
    embedding = {
      operationType: 'embedding',
      model: `${BUILTIN_EMBEDDER_PROVIDER}/${builtinEmbeddingModel}`,
      provider: BUILTIN_EMBEDDER_PROVIDER,
      source: 'default',
      tieringActive: false,
      timeoutMs: null,
      // In-process and keyless: no second provider is involved.
      crossProvider: false,
      apiKeyConfigured: false,
    };
  } else {
    const info = router.providerInfo(embeddings.provider);
    embedding = {
      operationType: 'embedding',
      model: formatModelRef({ provider: embeddings.provider, modelId: embeddings.model }),
      provider: embeddings.provider,
      source: 'config',
      tieringActive: false,
      timeoutMs: info?.timeoutMs ?? null,
      crossProvider: chat !== undefined && chat.provider !== embeddings.provider,
      apiKeyConfigured: info?.isApiKeyConfigured ?? false,
    };
  }

  return {
    agentId,
    primaryModel: chat === undefined ? null : formatModelRef(chat),
    providerFamily: primaryInfo?.type ?? null,
    tieringActive: false,
    operations: [
      onModel('chat', chat, chat === undefined ? 'default' : 'config'),
      onModel('compaction', compaction, chat === undefined ? 'default' : 'config'),
      embedding,
    ],
  };
}
