// Every failure kind the gateway reports; each surface (JSON-RPC, REST, /v1) maps kinds to its own envelope.
// The door of src/errors/: other folders import '../errors.js', never a file behind it.
export * from './errors/gateway-error.js';
export * from './errors/mask.js';
export * from './errors/internal-report.js';
export * from './errors/field-issues.js';
export * from './errors/resource-errors.js';
export * from './errors/request-errors.js';
export * from './errors/availability-errors.js';
export * from './errors/tool-errors.js';
export * from './errors/mcp-errors.js';
export * from './errors/mcp-server-errors.js';
export * from './errors/orchestrate-errors.js';
export * from './errors/skill-errors.js';
export * from './errors/learning-errors.js';
export * from './errors/graph-errors.js';
export * from './errors/graph-run-errors.js';
export * from './errors/channel-errors.js';
export * from './errors/terminal-errors.js';
export * from './errors/budget-method-errors.js';
export * from './errors/budget-errors.js';
export * from './errors/secret-errors.js';
export * from './errors/a2a-errors.js';
export * from './errors/provider-errors.js';
