// Reflect: successful trajectories clustered into candidate learned procedures, one reflect.funnel per agent pass.
export { createReflector } from './reflector.js';
export { clusterSources, normalizeToolSequence, type Cluster, type SortedSources } from './cluster.js';
export { admissionOutcome, type ClusterFate, type PassEnding } from './admission.js';
export {
  deterministicProcedure,
  isProcedureNameTooLong,
  missingTools,
  renderProcedureBody,
  type Procedure,
} from './procedure.js';
export { parseSynthesisReply, synthesisPrompt } from './synthesis.js';
export { MAX_PROCEDURE_NAME_CHARS } from './limits.js';
export * from './types.js';
