// The obs capability module: the observability services over the evidence store, the obs.* methods, and shutdown.
import type { CapabilityModule } from '../capability.js';
import { obsMethods } from './methods.js';
import { createObservability, type Observability, type ObservabilityDeps } from './observability.js';

export interface ObsModule extends CapabilityModule {
  /** The recorders and reports other modules and transports read (REST channel list, boot posture, health signals). */
  readonly observability: Observability;
}

export function createObsModule(deps: ObservabilityDeps): ObsModule {
  const observability = createObservability(deps);
  return {
    name: 'obs',
    observability,
    methods: obsMethods({ obs: observability }),
    stop: () => observability.close(),
  };
}
