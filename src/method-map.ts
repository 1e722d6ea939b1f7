// The JSON-RPC methods as types, for the dashboard's typed calls: each method's params (its zod schema's input) and
// result (what its handler resolves to), read from the method factories. Types only: nothing imports this file at
// runtime, so it adds no import to any folder (web/src/lib/rpc.ts reads it with `import type`).
import type { z } from 'zod';
import type { agentMethods, agentModelMethods, toolListMethods } from './agents/index.js';
import type { approvalMethods } from './approvals/index.js';
import type { audioMethods } from './audio/index.js';
import type { budgetMethods } from './budgets/index.js';
import type { browserMethods } from './browser/index.js';
import type { channelMethods } from './channels/index.js';
import type { graphMethods } from './graphs/index.js';
import type { learningMethods } from './learning/index.js';
import type { mcpMethods } from './mcp/index.js';
import type { memoryMethods } from './memory/index.js';
import type { dashboardObsMethods, obsMethods } from './obs/index.js';
import type { modelMethods, providerAdminMethods } from './providers/index.js';
import type { controlMethods, runMethods } from './runs/index.js';
import type { cronMethods } from './scheduler/index.js';
import type { sessionMethods } from './sessions/index.js';
import type { skillMethods } from './skills/index.js';
import type { configMethods, gatewayMethods, systemMethods, tokenMethods } from './system/index.js';
import type { terminalMethods } from './terminal/index.js';
import type { agentTurnMethods } from './turns/index.js';

/** Every method factory of every capability module; a new module's factory is added here. */
type MethodFactory =
  | typeof agentMethods
  | typeof agentModelMethods
  | typeof agentTurnMethods
  | typeof approvalMethods
  | typeof audioMethods
  | typeof browserMethods
  | typeof budgetMethods
  | typeof channelMethods
  | typeof configMethods
  | typeof controlMethods
  | typeof cronMethods
  | typeof gatewayMethods
  | typeof graphMethods
  | typeof mcpMethods
  | typeof memoryMethods
  | typeof modelMethods
  | typeof obsMethods
  | typeof dashboardObsMethods
  | typeof runMethods
  | typeof sessionMethods
  | typeof systemMethods
  | typeof tokenMethods
  | typeof skillMethods
  | typeof learningMethods
  | typeof terminalMethods
  | typeof providerAdminMethods
  | typeof toolListMethods;

type Definition = ReturnType<MethodFactory>[number];

/** Method name → the params a caller sends and the result it gets back. */
export type MethodMap = {
  [D in Definition as D['name']]: { params: z.input<D['params']>; result: Awaited<ReturnType<D['handler']>> };
};

export type MethodName = keyof MethodMap;
