// Reflect: successful trajectories clustered into candidate learned procedures, one reflect.funnel per agent pass.
export { createReflector } from './reflector.js';
export { clusterSources } from './cluster.js';
export { passWatermark, withinSourceBounds } from './source-bounds.js';
export { admissionOutcome } from './admission.js';
export { deterministicProcedure, isProcedureNameTooLong, missingTools } from './procedure.js';
export { parseSynthesisReply } from './synthesis.js';
export { MAX_PROCEDURE_NAME_CHARS } from './limits.js';
export * from './types.js';
