// Combines the turn hooks of the module's parts (injection scan, trust tracking, recall) into the one set a module registers.
import type { ModelContextAddition, TurnHooks } from '../turns/index.js';

/** The memory module gates no tool calls, so parts have no beforeTool. */
type Part = Partial<Pick<TurnHooks, 'beforeModel' | 'afterTool' | 'afterTurn'>>;

/**
 * The hook registry takes one function per hook name from each module, so the parts run here in the order given:
 * beforeModel additions are merged into one (messages in part order), afterTool and afterTurn run each part.
 * A hook name no part has stays absent, so the registry skips it.
 */
export function composeHooks(...parts: readonly Part[]): Part {
  const beforeModels = parts.flatMap((part) => (part.beforeModel === undefined ? [] : [part.beforeModel]));
  const afterTools = parts.flatMap((part) => (part.afterTool === undefined ? [] : [part.afterTool]));
  const afterTurns = parts.flatMap((part) => (part.afterTurn === undefined ? [] : [part.afterTurn]));
  const hooks: Part = {};
  if (beforeModels.length > 0) {
    hooks.beforeModel = async function composedBeforeModel(input, ctx) {
      let merged: ModelContextAddition | undefined;
      for (const hook of beforeModels) {
        const addition = await hook(input, ctx);
        if (addition === undefined || addition.messages.length === 0) continue;
        merged = merged === undefined ? addition : { source: merged.source, messages: [...merged.messages, ...addition.messages] };
      }
      return merged;
    };
  }
  if (afterTools.length > 0) {
    hooks.afterTool = async function composedAfterTool(result, ctx) {
      for (const hook of afterTools) await hook(result, ctx);
    };
  }
  if (afterTurns.length > 0) {
    hooks.afterTurn = async function composedAfterTurn(summary, ctx) {
      for (const hook of afterTurns) await hook(summary, ctx);
    };
  }
  return hooks;
}
