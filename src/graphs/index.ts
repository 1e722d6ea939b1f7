// Execution graphs: definitions of agent, tool, approval and map nodes, validated and stored, run as durable run trees.
export { createGraphsModule, type GraphsModule, type GraphsModuleDeps } from './module.js';
export { validateDefinition } from './definition.js';
export { GRAPH_LIMITS } from './limits.js';
export type * from './types.js';
