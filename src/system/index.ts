// System: the operator's methods over the running gateway itself — liveness and discovery (system.*, rpc.discover),
// process status and restart (gateway.*), API tokens (tokens.*) and the config file (config.*).
import type { CapabilityModule } from '../capability.js';
import type { ConfigStore } from '../config/index.js';
import type { TokenService } from '../server/index.js';
import { configMethods } from './config-methods.js';
import { systemMethods, type SystemMethodsDeps } from './discovery-methods.js';
import { gatewayMethods, type GatewayMethodsDeps } from './gateway-methods.js';
import { tokenMethods } from './token-methods.js';
import { secretMethods } from './secret-methods.js';

export { configMethods } from './config-methods.js';
export { systemMethods, type SystemMethodsDeps } from './discovery-methods.js';
export { gatewayMethods } from './gateway-methods.js';
export { tokenMethods } from './token-methods.js';

export interface SystemModuleDeps extends SystemMethodsDeps, Omit<GatewayMethodsDeps, 'sections'> {
  config: ConfigStore;
  tokens: TokenService;
}

export function createSystemModule(deps: SystemModuleDeps): CapabilityModule {
  const { config, tokens } = deps;
  return {
    name: 'system',
    methods: [
      ...systemMethods(deps),
      ...gatewayMethods({ ...deps, sections: () => Object.keys(config.get()) }),
      ...tokenMethods({ tokens }),
      ...configMethods({ config }),
      ...secretMethods({ config }),
    ],
  };
}
