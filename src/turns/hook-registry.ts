// Combines the turn hooks of several modules: beforeModel additions concatenated in module order, the first non-allow beforeTool decision wins.
import type {
  BeforeModelInput,
  ModelContextAddition,
  ToolCallInfo,
  ToolCallResult,
  ToolDecision,
  TurnHookContext,
  TurnHooks,
  TurnSummary,
} from './types.js';
import type { Logger } from 'pino';

/** A module's name with the hooks it registers: one set, or several run in the order given (a module of parts). */
export interface HookSource {
  readonly name: string;
  readonly hooks?: Partial<TurnHooks> | readonly Partial<TurnHooks>[];
}

/** What the loop calls: every registered module's hooks behind one object. */
export interface TurnHookRegistry {
  /** Additions of every module, in module order; a failing hook is logged and adds nothing. */
  beforeModel(input: BeforeModelInput, ctx: TurnHookContext): Promise<ModelContextAddition[]>;
  /** Asks modules in order and returns the first non-allow decision; a failing hook denies the call. */
  beforeTool(call: ToolCallInfo, ctx: TurnHookContext): Promise<ToolDecision>;
  afterTool(result: ToolCallResult, ctx: TurnHookContext): Promise<void>;
  afterTurn(summary: TurnSummary, ctx: TurnHookContext): Promise<void>;
  /** Adds a module's hooks after those registered before it (app.ts registers modules once they are built). */
  register(source: HookSource): void;
}

const ALLOW: ToolDecision = { action: 'allow' };

type Registered<K extends keyof TurnHooks> = { module: string; hook: TurnHooks[K] }[];

export function createHookRegistry(sources: readonly HookSource[], log: Logger): TurnHookRegistry {
  const beforeModel: Registered<'beforeModel'> = [];
  const beforeTool: Registered<'beforeTool'> = [];
  const afterTool: Registered<'afterTool'> = [];
  const afterTurn: Registered<'afterTurn'> = [];
  function register({ name: module, hooks = [] }: HookSource): void {
    for (const set of Array.isArray(hooks) ? hooks : [hooks]) {
      if (set.beforeModel !== undefined) beforeModel.push({ module, hook: set.beforeModel });
      if (set.beforeTool !== undefined) beforeTool.push({ module, hook: set.beforeTool });
      if (set.afterTool !== undefined) afterTool.push({ module, hook: set.afterTool });
      if (set.afterTurn !== undefined) afterTurn.push({ module, hook: set.afterTurn });
    }
  }
  sources.forEach(register);

  async function notifyEach<T>(
    hooks: { module: string; hook: (value: T, ctx: TurnHookContext) => Promise<void> }[],
    value: T,
    ctx: TurnHookContext,
    name: string,
  ) {
    for (const { module, hook } of hooks) {
      try {
        await hook(value, ctx);
      } catch (error) {
        // An observer failing must not change a turn that already happened.
        log.warn({ err: error, module, hook: name, traceId: ctx.traceId }, 'turn hook failed');
      }
    }
  }

  return {
    register,
    async beforeModel(input, ctx) {
      const additions: ModelContextAddition[] = [];
      for (const { module, hook } of beforeModel) {
        try {
          const addition = await hook(input, ctx);
          if (addition !== undefined && addition.messages.length > 0) additions.push(addition);
        } catch (error) {
          log.warn(
            { err: error, module, hook: 'beforeModel', traceId: ctx.traceId },
            'turn hook failed; the model call goes ahead without its context',
          );
        }
      }
      return additions;
    },
    async beforeTool(call, ctx) {
      for (const { module, hook } of beforeTool) {
        try {
          const decision = await hook(call, ctx);
          if (decision.action !== 'allow') return decision;
        } catch (error) {
          // A gate that cannot answer must not let the call through.
          log.warn(
            { err: error, module, hook: 'beforeTool', traceId: ctx.traceId },
            'turn hook failed; the tool call is denied',
          );
          return { action: 'deny', reason: `${module} could not decide on this call` };
        }
      }
      return ALLOW;
    },
    afterTool: (result, ctx) => notifyEach(afterTool, result, ctx, 'afterTool'),
    afterTurn: (summary, ctx) => notifyEach(afterTurn, summary, ctx, 'afterTurn'),
  };
}

/** A registry with no hooks, for callers that register none. */
export function noHooks(log: Logger): TurnHookRegistry {
  return createHookRegistry([], log);
}
