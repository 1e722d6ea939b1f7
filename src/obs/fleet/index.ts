// obs.fleet.health: the FleetHealthReport of a time window, assembled purely from recorded evidence.
export { assembleFleetHealth, FLEET_CAPS } from './assemble.js';
export { HIGH_DEGRADED_RATE, HIGH_RATE_MIN_SESSIONS } from './root-cause.js';
export { AUTHORING_GATE_MIN_INVOCATIONS, AUTHORING_GATE_MIN_GAP_POINTS, RECURRENCE_MIN } from './signals.js';
export type * from './types.js';
