// Turns: TurnService (lock → session → loop → usage), the loop's steps and hooks, session keys and owner checks.
export { createTurnService, type EnsureSessionInput, type TurnService, type TurnServiceDeps } from './turn-service.js';
export { createTurnLoop, type LoopTurn, type TurnLoop, type TurnLoopDeps } from './turn-loop.js';
export { createHookRegistry, noHooks, type HookSource, type TurnHookRegistry } from './hook-registry.js';
export {
  TURN_HOOK_NAMES,
  type BeforeModelInput,
  type ModelContextAddition,
  type ToolCallInfo,
  type ToolCallResult,
  type ToolDecision,
  type TurnHookContext,
  type TurnHooks,
  type TurnSummary,
} from './hooks.js';
export { DEFAULT_TURN_LIMITS, type TurnLimits } from './limits.js';
export { fitContext, type BudgetVerdict, type ContextBudget } from './context-budget.js';
export { turnReply, undoneTaskError, type TurnReply } from './turn-reply.js';
export { readSessionUsage, type SessionUsage } from './turn-usage.js';
export {
  assertKeyAllowed,
  assertSessionAccess,
  canAccessSession,
  sessionCallerOf,
  WEBHOOK_CALLER,
  WEBHOOK_OWNER_ID,
  type KeyGrants,
} from './session-access.js';
export {
  channelOf,
  DEFAULT_TENANT,
  deriveSessionKind,
  formatSessionKey,
  MAX_KEY_PART_LENGTH,
  normalizeSessionKey,
  parseSessionKey,
  sessionKeyObjectSchema,
  sessionKeyProblem,
  sessionKeyStringSchema,
  SUB_AGENT_CHANNEL,
  subAgentSessionKey,
  type SessionKeyParts,
} from './session-key.js';
export type { FinishReason, TokensUsed, TurnRequest, TurnResult, TurnRunner } from './types.js';
export { sessionAgentId } from './session-agent.js';
export type { SessionCaller } from '../agents/index.js';
export { agentTurnMethods } from './methods.js';
export type { ToolOutput } from './client-tools.js';
