// Context-window pre-flight: fits system + history + output headroom into the model's window, oldest history first out.
import { estimateMessageTokens, estimateTokens, type TranscriptMessage } from '../providers/index.js';

export type BudgetVerdict = 'fits' | 'downshifted' | 'exhausted';

export interface ContextBudget {
  windowTokens: number;
  /** The window before any cap; equal to windowTokens while the gateway applies no tier caps. */
  rawContextWindowTokens: number;
  /** Where the window came from: `served` (the model catalog) or `none` (a default for an unlisted model). */
  windowCapSource: 'served' | 'none';
  systemTokens: number;
  /** Tokens of the messages of the current turn, which are never dropped. */
  freshTailTokens: number;
  /** Tokens of the earlier history that was kept. */
  budgetedHistoryTokens: number;
  keptCount: number;
  droppedCount: number;
  assembledInputTokens: number;
  outputHeadroom: number;
  verdict: BudgetVerdict;
}

export interface BudgetInput {
  windowTokens: number;
  windowCapSource: ContextBudget['windowCapSource'];
  outputHeadroom: number;
  system: string;
  /** Earlier history, oldest first; may be trimmed from the front. */
  history: readonly TranscriptMessage[];
  /** The current turn's messages (user message, tool calls and results so far); always kept. */
  freshTail: readonly TranscriptMessage[];
}

export interface BudgetOutcome {
  budget: ContextBudget;
  /** The messages to send: kept history followed by the fresh tail (empty when exhausted). */
  messages: TranscriptMessage[];
}

function sum(messages: readonly TranscriptMessage[]): number {
  return messages.reduce((total, message) => total + estimateMessageTokens(message), 0);
}

export function fitContext({
  windowTokens,
  windowCapSource,
  outputHeadroom,
  system,
  history,
  freshTail,
}: BudgetInput): BudgetOutcome {
  const systemTokens = estimateTokens(system);
  const freshTailTokens = sum(freshTail);
  const available = windowTokens - outputHeadroom - systemTokens - freshTailTokens;
  let start = 0;
  let historyTokens = sum(history);
  // Drop whole messages from the oldest end; a tool result without its call would confuse the model, so a
  // leading tool message is dropped together with what precedes it.
  while (start < history.length && (historyTokens > available || history[start]?.role === 'tool')) {
    const dropped = history[start];
    if (dropped !== undefined) historyTokens -= estimateMessageTokens(dropped);
    start += 1;
  }
  const kept = history.slice(start);
  const isExhausted = available < 0;
  const budget: ContextBudget = {
    windowTokens,
    rawContextWindowTokens: windowTokens,
    windowCapSource,
    systemTokens,
    freshTailTokens,
    budgetedHistoryTokens: isExhausted ? 0 : historyTokens,
    keptCount: isExhausted ? 0 : kept.length,
    droppedCount: isExhausted ? history.length : start,
    assembledInputTokens: systemTokens + freshTailTokens + (isExhausted ? 0 : historyTokens),
    outputHeadroom,
    verdict: isExhausted ? 'exhausted' : start > 0 ? 'downshifted' : 'fits',
  };
  return { budget, messages: isExhausted ? [] : [...kept, ...freshTail] };
}
