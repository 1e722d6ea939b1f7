// obs.fleet.health: the FleetHealthReport of a time window, assembled purely from recorded evidence.
export { assembleFleetHealth, FLEET_CAPS } from './assemble.js';
export { HIGH_DEGRADED_RATE } from './root-cause.js';
export type * from './types.js';
