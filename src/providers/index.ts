// LLM and embedding providers: the model router (catalog, fallback, breakers), embedders and their helpers.
export * from './types.js';
export {
  createModelRouter,
  NO_PROVIDER_MESSAGE,
  type GatewayModelRouter,
  type ModelRouterDeps,
} from './model-router.js';
export { upstreamFailuresOf, type UpstreamFailure } from './router-errors.js';
export { baseUrlOf } from './provider-config.js';
export { CALL_FIELDS, PROVIDER_TABLE, PROVIDER_TYPES, type CallField, type ProviderType } from '../provider-table.js';
export { createEmbedder, createLiveEmbedder, type LiveEmbedder } from './embedders.js';
export { createHashingEmbedder, hashingVector } from './hashing-embedder.js';
export { describeOperationModels, resolveAgentModel } from './operation-models.js';
export {
  estimateMessageTokens,
  estimateTokens,
  type TranscriptMessage,
  type TranscriptToolCall,
} from './transcript.js';
export { modelMethods } from './methods.js';
export { providerAdminMethods } from './provider-admin-methods.js';
export { createModelsModule } from './module.js';
export { argumentsText, toolInput } from './wire/decoding.js';
export type { WireResponseFormat, WireToolChoice } from './wire/call-settings.js';
