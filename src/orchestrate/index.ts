// Orchestrate (code mode): agents run scripts that call their tools under capability leases, in a sandboxed child.
export { createOrchestrateModule } from './module.js';
export { orchestrateInput } from './tool.js';
