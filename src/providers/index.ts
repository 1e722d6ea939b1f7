// LLM and embedding providers: the model router (catalog, fallback, breakers), embedders and their helpers.
export * from './types.js';
export {
  createModelRouter,
  NO_PROVIDER_MESSAGE,
  type GatewayModelRouter,
  type ModelRouterDeps,
  type ProviderInfo,
} from './model-router.js';
export type { BreakerSnapshot, BreakerState, CircuitBreakerOptions } from './circuit-breaker.js';
export type { ProviderErrorKind } from './error-kind.js';
export { describeFailure, upstreamFailuresOf, type UpstreamFailure } from './router-errors.js';
export type { CacheStats } from './usage.js';
export type { ServedWindowEntry } from './served-window.js';
export { baseUrlOf, type ProvidersConfig } from './provider-config.js';
export { CALL_FIELDS, PROVIDER_TABLE, PROVIDER_TYPES, type CallField, type ProviderType } from '../provider-table.js';
export { createEmbedder, createLiveEmbedder, type EmbedderDeps, type LiveEmbedder } from './embedders.js';
export { createHashingEmbedder, hashingVector, type HashingEmbedderOptions } from './hashing-embedder.js';
export {
  BUILTIN_EMBEDDER_PROVIDER,
  describeOperationModels,
  parseModelRef,
  resolveAgentModel,
  type ModelSource,
  type OperationModel,
  type OperationModelsReport,
  type OperationType,
} from './operation-models.js';
export {
  estimateMessageTokens,
  estimateTokens,
  type TranscriptMessage,
  type TranscriptToolCall,
} from './transcript.js';
export { modelMethods } from './methods.js';
export { createModelsModule } from './module.js';
export { argumentsText, toolInput, type WireResponseFormat, type WireToolChoice } from './wire/index.js';
