// Orchestrate (code mode): agents run scripts that call their tools under capability leases, in a sandboxed child.
export { createOrchestrateModule, type OrchestrateModule, type OrchestrateModuleDeps } from './module.js';
export { orchestrateInput } from './tool.js';
