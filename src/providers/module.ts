// The models capability module: models.* over the router's providers and catalog.
import type { Logger } from 'pino';
import type { MethodModule } from '../rpc/types.js';
import { modelMethods } from './methods.js';
import type { GatewayModelRouter } from './model-router.js';

export function createModelsModule({ router, log }: { router: GatewayModelRouter; log: Logger }): MethodModule {
  return {
    name: 'models',
    methods: modelMethods({ router, breakerState: (provider) => router.breakerState(provider) }),
    start() {
      if (router.providers().length === 0)
        log.warn(
          'no LLM provider configured: agent turns will end with an error until one is added under `providers:`',
        );
    },
  };
}
