// What a model or embedding call may cost at most, reserved before it is dispatched, and what it cost in the end.
import {
  estimateMessageTokens,
  estimateTokens,
  type ModelCatalogEntry,
  type ModelRef,
  type RoutedCallRequest,
  type TokenUsage,
} from '../providers/index.js';
import { toMicroUsd } from './applicable.js';
import type { BudgetAmount } from './types.js';

/** Output tokens assumed for a model the catalog does not list (its provider is configured, the model is not). */
export const UNLISTED_MODEL_OUTPUT_TOKENS = 8_192;

type EntryOf = (ref: ModelRef) => Pick<ModelCatalogEntry, 'maxTokens' | 'cost'> | undefined;

/** The input tokens of the assembled call, by the gateway's estimate (ceil(characters / 4), as context budgeting counts). */
export function estimateInputTokens(request: Pick<RoutedCallRequest, 'system' | 'messages' | 'tools'>): number {
  let tokens = estimateTokens(request.system);
  for (const message of request.messages) tokens += estimateMessageTokens(message);
  if (request.tools.length > 0) tokens += estimateTokens(JSON.stringify(request.tools));
  return tokens;
}

/** Per-million prices: every input token at the dearest input rate (a cache write may cost more than plain input). */
const costOf = (cost: ModelCatalogEntry['cost'] | undefined, inputTokens: number, outputTokens: number): number =>
  cost === undefined
    ? 0
    : (inputTokens * Math.max(cost.input, cost.cacheRead, cost.cacheWrite) + outputTokens * cost.output) / 1e6;

/**
 * The worst case of a routed call: the estimated input plus the most output it may ask for (its maxOutputTokens, else
 * the model's catalog maxTokens), priced at the dearest of the primary and its fallbacks, any of which may answer.
 */
export function worstCaseOf(request: RoutedCallRequest, entryOf: EntryOf): BudgetAmount {
  const inputTokens = estimateInputTokens(request);
  let costUsd = 0;
  let tokens = 0;
  for (const ref of [request.primary, ...request.fallbacks]) {
    const entry = entryOf(ref);
    const outputTokens = request.settings?.maxOutputTokens ?? entry?.maxTokens ?? UNLISTED_MODEL_OUTPUT_TOKENS;
    costUsd = Math.max(costUsd, costOf(entry?.cost, inputTokens, outputTokens));
    tokens = Math.max(tokens, inputTokens + outputTokens);
  }
  return { costMicroUsd: toMicroUsd(costUsd), tokens };
}

/** What a finished call used: its reported tokens and the cost the router priced them at. */
export const usedByCall = (usage: TokenUsage, costUsd: number): BudgetAmount => ({
  costMicroUsd: toMicroUsd(costUsd),
  tokens: usage.inputTokens + usage.outputTokens,
});

/**
 * A call that failed or was cut after it had streamed output was still (partly) billed upstream: its estimated input
 * and the output seen so far, at the dearest candidate's prices.
 */
export function partialUseOf(request: RoutedCallRequest, entryOf: EntryOf, outputChars: number): BudgetAmount {
  const inputTokens = estimateInputTokens(request);
  // The same characters-per-token rule as estimateTokens.
  const outputTokens = Math.ceil(outputChars / 4);
  let costUsd = 0;
  for (const ref of [request.primary, ...request.fallbacks])
    costUsd = Math.max(costUsd, costOf(entryOf(ref)?.cost, inputTokens, outputTokens));
  return { costMicroUsd: toMicroUsd(costUsd), tokens: inputTokens + outputTokens };
}
