// Coordination between gateway instances: per-session locks, instance liveness and leader leases (local now; shared later).
import { createLocalInstances, type Instances } from './instances.js';
import { createLocalLeases, type Leases } from './leases.js';
import { createSessionLocks, type SessionLocks } from './session-locks.js';

export { createLocalInstances, type Instances } from './instances.js';
export { createLocalLeases, type Leases } from './leases.js';
export { createSessionLocks, type SessionLocks } from './session-locks.js';

export interface Coordination {
  locks: SessionLocks;
  instances: Instances;
  leases: Leases;
}

/** One process: in-memory locks, only this process counts as alive, and it holds every lease. */
export function createLocalCoordination(): Coordination {
  return { locks: createSessionLocks(), instances: createLocalInstances(), leases: createLocalLeases() };
}
