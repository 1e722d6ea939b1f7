// Execution graphs: definitions of agent, tool, approval and map nodes, validated and stored, run as durable run trees.
export { createGraphsModule } from './module.js';
export type { graphMethods } from './methods.js';
