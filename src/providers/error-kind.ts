// Classifies a failed model call (AI SDK errors, fetch failures, our timeouts) into one provider error kind.
import { APICallError, InvalidArgumentError, InvalidPromptError, LoadAPIKeyError, MissingToolResultsError, RetryError } from 'ai';

export type ProviderErrorKind = 'auth' | 'rate_limit' | 'server' | 'timeout' | 'network' | 'bad_request' | 'aborted' | 'unknown';

/** A failed call, classified; the cause keeps the SDK error for the log, never for a client. */
export class ProviderCallError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    readonly statusCode: number | undefined,
    options?: ErrorOptions,
  ) {
    super(statusCode === undefined ? `model call failed (${kind})` : `model call failed (${kind}, HTTP ${statusCode})`, options);
    this.name = 'ProviderCallError';
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'UND_ERR_SOCKET']);

function errorName(error: unknown): string | undefined {
  return error instanceof Error || error instanceof DOMException ? error.name : undefined;
}

function hasNetworkCode(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 5; depth += 1) {
    if (typeof current !== 'object') return false;
    const code = 'code' in current ? current.code : undefined;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    current = 'cause' in current ? current.cause : undefined;
  }
  return false;
}

export function statusKind(statusCode: number): ProviderErrorKind {
  if (statusCode === 401 || statusCode === 403) return 'auth';
  if (statusCode === 429) return 'rate_limit';
  if (statusCode === 408) return 'timeout';
  if (statusCode >= 500) return 'server';
  if (statusCode >= 400) return 'bad_request';
  return 'network';
}

export function classifyProviderError(error: unknown): ProviderErrorKind {
  if (error instanceof ProviderCallError) return error.kind;
  if (RetryError.isInstance(error)) return classifyProviderError(error.lastError);
  if (APICallError.isInstance(error)) {
    // No status: the connection failed or broke while the body was read (the SDK wraps both).
    return error.statusCode === undefined ? 'network' : statusKind(error.statusCode);
  }
  if (LoadAPIKeyError.isInstance(error)) return 'auth';
  // The SDK refused our request before sending it: no fallback, and no strike against the provider's breaker.
  if (InvalidPromptError.isInstance(error) || MissingToolResultsError.isInstance(error) || InvalidArgumentError.isInstance(error)) return 'bad_request';
  const name = errorName(error);
  if (name === 'TimeoutError') return 'timeout';
  if (name === 'AbortError' || name === 'ResponseAborted') return 'aborted';
  if (hasNetworkCode(error) || (error instanceof TypeError && /fetch failed/i.test(error.message))) return 'network';
  return 'unknown';
}

export function statusCodeOf(error: unknown): number | undefined {
  if (error instanceof ProviderCallError) return error.statusCode;
  if (RetryError.isInstance(error)) return statusCodeOf(error.lastError);
  return APICallError.isInstance(error) ? error.statusCode : undefined;
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
