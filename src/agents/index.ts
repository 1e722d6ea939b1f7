// Agents: the agent registry over config, the tool registry with the built-in tools, and which model an agent uses.
export { createAgentRegistry, type ManagedAgentRegistry } from './agent-registry.js';
export { agentModels, type AgentModels } from './agent-model.js';
export { builtinTools } from './tools/builtin.js';
export {
  createToolRegistry,
  DEFAULT_TOOL_LIMITS,
  toolFailure,
  type ToolCallOutcome,
  type ToolLimits,
  type ToolRegistry,
  type ToolSource,
  type TurnTools,
} from './tools/tool-registry.js';
export { defineTool, type ToolContext, type ToolDefinition } from './tools/types.js';
export type { AgentDefinition, AgentRegistry, SessionCaller } from './types.js';
export { agentMethods } from './methods.js';
export { agentModelMethods } from './model-methods.js';
export { toolListMethods } from './tool-list-methods.js';
export { createAgentsModule } from './module.js';
export { offeredToolNames, SKILL_READ_TOOL } from './offered-tools.js';
