// Coordination between gateway instances: per-session locks and instance liveness (local now; shared later).
import { createLocalInstances, type Instances } from './instances.js';
import { createSessionLocks, type SessionLocks } from './session-locks.js';

export { createLocalInstances, type Instances } from './instances.js';
export { createSessionLocks, type SessionLocks } from './session-locks.js';

export interface Coordination {
  locks: SessionLocks;
  instances: Instances;
}

/** One process: in-memory locks, and only this process counts as alive. */
export function createLocalCoordination(): Coordination {
  return { locks: createSessionLocks(), instances: createLocalInstances() };
}
