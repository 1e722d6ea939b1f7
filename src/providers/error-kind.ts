// Provider error kinds (classified by the wire adapters) and which kinds fall back or trip the breaker.
import { ProviderCallError, toProviderCallError, type ProviderErrorKind } from './wire/index.js';

export { ProviderCallError, type ProviderErrorKind };

/** Classifying a stray error needs a caller signal; this one never aborts. */
const NEVER_ABORTED = new AbortController().signal;

/** The kind of any failure of a call: the wire adapters classify what they throw, anything else by its code or name. */
export function classifyProviderError(error: unknown): ProviderErrorKind {
  return error instanceof ProviderCallError ? error.kind : toProviderCallError(error, NEVER_ABORTED, false).kind;
}

export function statusCodeOf(error: unknown): number | undefined {
  return error instanceof ProviderCallError ? error.statusCode : undefined;
}

/** What the upstream said about a failed call (masked, capped), when it said anything. */
export function upstreamMessageOf(error: unknown): string | undefined {
  return error instanceof ProviderCallError ? error.upstreamMessage : undefined;
}

/** Kinds after which the next candidate model is tried: the provider, not the request, is at fault. */
export function isFallbackEligible(kind: ProviderErrorKind): boolean {
  return kind !== 'bad_request' && kind !== 'aborted';
}

/** Kinds that count toward the provider's circuit breaker; auth has its own cooldown. */
export function countsTowardBreaker(kind: ProviderErrorKind): boolean {
  return kind === 'server' || kind === 'rate_limit' || kind === 'timeout' || kind === 'network' || kind === 'unknown';
}

/** A short, body-free description for models.test and logs: the kind and status only. */
export function describeProviderError(error: unknown): string {
  const kind = classifyProviderError(error);
  const statusCode = statusCodeOf(error);
  return statusCode === undefined ? kind : `${kind} (HTTP ${statusCode})`;
}
