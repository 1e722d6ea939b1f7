// A turn's running counts (text, tokens, cost, steps, tool failures) and the report's endReason derived from them.
import type { FinishReason } from './types.js';

export interface TurnTally {
  text: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  steps: number;
  toolFailures: number;
  lastModelFinish: string;
}

export function emptyTally(): TurnTally {
  return { text: '', inputTokens: 0, outputTokens: 0, costUsd: 0, steps: 0, toolFailures: 0, lastModelFinish: 'stop' };
}

/** The report's endReason for a finished turn (obs.explain): finer than the client-facing finish reason. */
export function endReasonOf(finishReason: FinishReason, tally: TurnTally): string {
  if (finishReason === 'stop') return tally.toolFailures > 0 ? 'completed_with_tool_errors' : 'completed';
  // obs.explain's name for an answer cut at its length (its rule and remedy read it).
  if (finishReason === 'length') return 'output_starved';
  return finishReason;
}
