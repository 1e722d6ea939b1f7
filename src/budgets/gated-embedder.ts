// The budget gate in front of the configured embedder: an embedding call reserves its estimated tokens (priced when the
// catalog prices the embedding model) against the budgets that apply, and counts them once the provider answered.
import type { BudgetConfig } from '../config/index.js';
import { budgetExceeded } from '../errors.js';
import { estimateTokens, type Embedder, type LiveEmbedder, type ModelCatalogEntry } from '../providers/index.js';
import { applicableBudgets, toMicroUsd } from './applicable.js';
import type { BudgetNotices } from './budget-notices.js';
import { RESERVATION_MARGIN_MS, subjectOf } from './gated-router.js';
import type { BudgetAmount, BudgetLedger } from './types.js';

/** How long an embedding call's reservation is held at most, in ms (a provider's default timeout plus the margin). */
const EMBEDDING_RESERVATION_TTL_MS = 120_000 + RESERVATION_MARGIN_MS;

export interface EmbedderGateDeps {
  ledger: BudgetLedger;
  budgets: () => readonly BudgetConfig[];
  notices: BudgetNotices;
  /** The catalog price of the configured embedding model, when it lists one. */
  priceOf: () => ModelCatalogEntry['cost'] | undefined;
}

function amountOf(texts: readonly string[], price: ModelCatalogEntry['cost'] | undefined): BudgetAmount {
  // The spec's embeddings usage is this same estimate: ceil(characters / 4) per input.
  const tokens = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
  return { costMicroUsd: price === undefined ? 0 : toMicroUsd((tokens * price.input) / 1e6), tokens };
}

function gateEmbedder(embedder: Embedder, deps: EmbedderGateDeps): Embedder {
  const { ledger, budgets, notices, priceOf } = deps;
  return {
    model: embedder.model,
    async embed(texts, signal, options) {
      const configured = budgets();
      const subject = subjectOf(options?.payer?.agentId ?? '', options?.payer);
      if (configured.length === 0 || applicableBudgets(configured, subject).length === 0)
        return embedder.embed(texts, signal, options);
      const amount = amountOf(texts, priceOf());
      const outcome = await ledger.reserve(subject, amount, EMBEDDING_RESERVATION_TTL_MS);
      if (!outcome.ok) {
        notices.notice('budget:exhausted', outcome.budgetId);
        throw budgetExceeded(outcome.budgetId, outcome.retryAfterMs);
      }
      for (const budgetId of outcome.warnings) notices.notice('budget:warning', budgetId);
      for (const budgetId of outcome.exhausted) notices.notice('budget:exhausted', budgetId);
      let result;
      try {
        result = await embedder.embed(texts, signal, options);
      } catch (error) {
        await ledger.release(outcome.reservation);
        throw error;
      }
      await ledger.settle(outcome.reservation, amount);
      return result;
    },
  };
}

/** The live embedder whose `current()` is gated; one gated wrapper per embedder built. */
export function gateLiveEmbedder(live: LiveEmbedder, deps: EmbedderGateDeps): LiveEmbedder {
  const gatedOf = new WeakMap<Embedder, Embedder>();
  return {
    current() {
      const embedder = live.current();
      if (embedder === undefined) return undefined;
      let gated = gatedOf.get(embedder);
      if (gated === undefined) {
        gated = gateEmbedder(embedder, deps);
        gatedOf.set(embedder, gated);
      }
      return gated;
    },
    reload: (config) => live.reload(config),
  };
}
