// The models capability module: models.* over the router's providers and catalog, providers.* over the config.
import type { Logger } from 'pino';
import type { MethodModule } from '../rpc/types.js';
import type { ConfigStore } from '../config/index.js';
import { modelMethods } from './methods.js';
import type { GatewayModelRouter } from './model-router.js';
import { providerAdminMethods } from './provider-admin-methods.js';

export interface ModelsModuleDeps {
  router: GatewayModelRouter;
  /** Where providers.* read and write the providers: section. */
  config: Pick<ConfigStore, 'get' | 'update'>;
  log: Logger;
}

export function createModelsModule({ router, config, log }: ModelsModuleDeps): MethodModule {
  return {
    name: 'models',
    methods: [
      ...modelMethods({ router, breakerState: (provider) => router.breakerState(provider) }),
      ...providerAdminMethods({ config }),
    ],
    start() {
      if (router.providers().length === 0)
        log.warn(
          'no LLM provider configured: agent turns will end with an error until one is added under `providers:`',
        );
    },
  };
}
