// Model prices used to estimate what prompt caching saved: USD per million tokens, as in the model catalogue.

export interface ModelPrice {
  /** USD per million input tokens. */
  input: number;
  /** USD per million cache-read tokens. */
  cacheRead: number;
}

/** The catalogue price of a provider's model, or undefined when unknown (its savings then count as 0). */
export type PriceLookup = (provider: string, model: string) => ModelPrice | undefined;

/** USD saved by reading `cacheReadTokens` from the cache instead of paying the full input price. */
export function cacheSavingsUsd(price: ModelPrice | undefined, cacheReadTokens: number): number {
  if (price === undefined) return 0;
  const perToken = (price.input - price.cacheRead) / 1_000_000;
  return perToken > 0 ? cacheReadTokens * perToken : 0;
}
