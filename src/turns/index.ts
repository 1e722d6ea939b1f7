// Turns: the turns module, TurnService (lock → session → loop → usage), the loop's steps and hooks, agent.execute.
export { createTurnService, type EnsureSessionInput, type TurnService, type TurnServiceDeps } from './turn-service.js';
export { createTurnLoop, type LoopOutcome, type LoopTurn, type TurnLoop, type TurnLoopDeps } from './turn-loop.js';
export { createHookRegistry, noHooks, type HookSource, type TurnHookRegistry } from './hook-registry.js';
export { TURN_HOOK_NAMES } from './hooks.js';
export { DEFAULT_TURN_LIMITS, type TurnLimits } from './limits.js';
export { fitContext, type BudgetVerdict, type ContextBudget } from './context-budget.js';
export { turnReply, undoneTaskError, type TurnReply } from './turn-reply.js';
export type { FinishReason, TokensUsed, TurnModels, TurnRequest, TurnResult, TurnRunner } from './types.js';
export { agentTurnMethods } from './methods.js';
export { createTurnsModule, type TurnsModule, type TurnsModuleDeps } from './module.js';
export type { ToolOutput } from './client-tools.js';
