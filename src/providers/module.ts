// The models capability module: models.* over the router's providers and catalog.
import type { CapabilityModule } from '../capability.js';
import { modelMethods } from './methods.js';
import type { ModelRouter } from './types.js';

export function createModelsModule({ router }: { router: ModelRouter }): CapabilityModule {
  return { name: 'models', methods: modelMethods({ router }) };
}
