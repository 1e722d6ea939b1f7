// Turns: the turns module, TurnService (lock → session → loop → usage), the loop's steps and hooks, agent.execute.
export { createTurnService, type TurnService } from './turn-service.js';
export { type TurnLoop } from './turn-loop.js';
export { createHookRegistry, noHooks, type HookSource } from './hook-registry.js';
export { fitContext } from './context-budget.js';
export { turnReply, turnRunOutcome, undoneTaskError } from './turn-reply.js';
export type { FinishReason, ToolProgress, TurnModels, TurnRequest, TurnResult, TurnRunner } from './types.js';
export { agentTurnMethods } from './methods.js';
export { createTurnsModule, type TurnsModule } from './module.js';
export type { ToolOutput } from './client-tools.js';
export { settleDecision } from './tool-step.js';
