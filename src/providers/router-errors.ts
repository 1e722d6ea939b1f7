// The errors a routed model call ends with: the last model's failure, or no model left to try.
import { GatewayError } from '../errors.js';
import { statusCodeOf, type ProviderErrorKind } from './error-kind.js';
import { formatModelRef, type ModelRef } from './types.js';

/** Why a provider was not tried: its breaker is open, or it rejected the API key and is cooling down. */
export type SkipReason = 'circuit_open' | 'auth_cooldown';

export function upstreamFailed({ kind, ref, attempts, cause, isAfterOutput, timeoutMs }: {
  kind: ProviderErrorKind;
  ref: ModelRef;
  attempts: number;
  cause: unknown;
  isAfterOutput: boolean;
  /** The provider's call budget, named when it ran out (obs.explain prompt_timeout). */
  timeoutMs: number | undefined;
}): GatewayError {
  const when = isAfterOutput ? ' after the reply had started' : '';
  const tries = attempts > 1 ? ` (${attempts} models tried)` : '';
  const statusCode = statusCodeOf(cause);
  return new GatewayError(
    'upstream_failed',
    `Model call to ${formatModelRef(ref)} failed${when}: ${kind}${tries}`,
    {
      errorKind: kind,
      model: formatModelRef(ref),
      attempts,
      ...(statusCode === undefined ? {} : { statusCode }),
      ...(kind === 'timeout' ? { timeoutMs } : {}),
    },
    { cause },
  );
}

/**
 * Every candidate was skipped. With an open breaker among them the answer says when the first lets a probe
 * through (`retryAt` of its snapshot, or now when one is half-open), so /v1 can send Retry-After.
 */
export function noCandidate(skipped: ReadonlyMap<string, SkipReason>, retryAtOf: (provider: string) => number | null | undefined, now: number): GatewayError {
  const providers = [...skipped.keys()];
  if ([...skipped.values()].includes('circuit_open')) {
    const waits = [...skipped].filter(([, reason]) => reason === 'circuit_open').map(([provider]) => Math.max(0, (retryAtOf(provider) ?? now) - now));
    return new GatewayError('unavailable', `Model provider unavailable: circuit breaker open for ${providers.join(', ')}`, {
      reason: 'circuit_open',
      providers,
      retryAfterMs: Math.min(...waits),
    });
  }
  return new GatewayError(
    'unavailable',
    `Model provider unavailable: ${providers.join(', ')} rejected the API key; skipped while cooling down (check apiKey in config.yaml)`,
    { reason: 'auth_cooldown', providers },
  );
}

/** The request asked for settings (CallSettings paths) that the provider has no way to honour. */
export function settingsRefused(provider: string, settings: readonly string[]): GatewayError {
  return new GatewayError('invalid_params', `Provider '${provider}' cannot honour ${settings.join(', ')}`, { provider, settings: [...settings] });
}
