// Agents: the agent registry over config, the tool registry with the built-in tools, and which model an agent uses.
export {
  createAgentRegistry,
  type AgentChange,
  type AgentChangeKind,
  type AgentDryRunResult,
  type AgentFields,
  type ManagedAgentRegistry,
  type ProviderCheck,
  type ProviderCheckResult,
} from './agent-registry.js';
export { agentModels, type AgentModels } from './agent-model.js';
export { builtinTools, type BuiltinToolDeps } from './tools/builtin.js';
export {
  createToolRegistry,
  DEFAULT_TOOL_LIMITS,
  toolFailure,
  type ToolCallOutcome,
  type ToolLimits,
  type ToolRegistry,
  type ToolRegistryOptions,
} from './tools/tool-registry.js';
export { defineTool, type ToolContext, type ToolDefinition, type ToolErrorKind } from './tools/types.js';
export type { AgentDefinition, AgentRegistry, AgentStatus, SessionCaller } from './types.js';
export { agentMethods } from './methods.js';
export { agentModelMethods, type AgentModelMethodsDeps } from './model-methods.js';
export { createAgentsModule, type AgentsModuleDeps } from './module.js';
