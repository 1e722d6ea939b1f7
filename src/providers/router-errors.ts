// The errors a routed model call ends with: the last model's failure, or no model left to try.
import { GatewayError } from '../errors.js';
import { statusCodeOf, upstreamMessageOf, type ProviderErrorKind } from './error-kind.js';
import type { ModelRef } from './types.js';
import { maskLiterals } from './wire/index.js';

/** Why a provider was not tried: its breaker is open, or it rejected the API key and is cooling down. */
export type SkipReason = 'circuit_open' | 'auth_cooldown';

/** One model's failed call of a routed request, as it travels with the error and into the turn's evidence. */
export interface UpstreamFailure {
  provider: string;
  model: string;
  errorKind: ProviderErrorKind;
  /** The HTTP status the provider answered, when it answered one. */
  statusCode?: number;
  /** The upstream's own message, masked and capped (wire/upstream-message.ts). */
  message?: string;
}

/** At most this many failed models are named in an error; the rest are counted. */
export const MAX_NAMED_FAILURES = 5;

/** A failed call of `ref`: its kind, status and the upstream's message, the provider's configured secrets masked once more. */
export function upstreamFailureOf(
  ref: ModelRef,
  kind: ProviderErrorKind,
  error: unknown,
  secrets: readonly (string | undefined)[],
): UpstreamFailure {
  const statusCode = statusCodeOf(error);
  const message = upstreamMessageOf(error);
  return {
    provider: ref.provider,
    model: ref.modelId,
    errorKind: kind,
    ...(statusCode === undefined ? {} : { statusCode }),
    ...(message === undefined ? {} : { message: maskLiterals(message, secrets) }),
  };
}

/** `server (HTTP 500): upstream exploded`: the kind, the status when there was one, the upstream's message when it gave one. */
export function describeFailure(failure: Pick<UpstreamFailure, 'errorKind' | 'statusCode' | 'message'>): string {
  const status = failure.statusCode === undefined ? '' : ` (HTTP ${failure.statusCode})`;
  return `${failure.errorKind}${status}${failure.message === undefined ? '' : `: ${failure.message}`}`;
}

/**
 * The error of a routed call that failed: the last model's failure, with each earlier model of a fallback chain named
 * with its own cause (at most MAX_NAMED_FAILURES in all). `failures` lists the models tried, in order; it is not empty.
 */
export function upstreamFailed({
  failures,
  isAfterOutput,
  timeoutMs,
  cause,
}: {
  failures: readonly UpstreamFailure[];
  isAfterOutput: boolean;
  /** The provider's call budget, named when it ran out (obs.explain prompt_timeout). */
  timeoutMs: number | undefined;
  cause: unknown;
}): GatewayError {
  const last = failures.at(-1);
  if (last === undefined) throw new TypeError('upstreamFailed needs at least one failure');
  const model = `${last.provider}/${last.model}`;
  const when = isAfterOutput ? ' after the reply had started' : '';
  const earlier = failures.slice(0, -1);
  const named = earlier.slice(-(MAX_NAMED_FAILURES - 1));
  const unnamed = earlier.length - named.length;
  const chain =
    earlier.length === 0
      ? ''
      : ` (${failures.length} models tried; ${unnamed > 0 ? `${unnamed} more before; ` : ''}${named.map((failure) => `${failure.provider}/${failure.model} failed: ${describeFailure(failure)}`).join('; ')})`;
  return new GatewayError(
    'upstream_failed',
    `Model call to ${model} failed${when}: ${describeFailure(last)}${chain}`,
    {
      errorKind: last.errorKind,
      model,
      attempts: failures.length,
      ...(last.statusCode === undefined ? {} : { statusCode: last.statusCode }),
      ...(last.message === undefined ? {} : { upstreamMessage: last.message }),
      ...(last.errorKind === 'timeout' ? { timeoutMs } : {}),
      failures: failures.slice(-MAX_NAMED_FAILURES),
    },
    { cause },
  );
}

const isFailure = (value: unknown): value is UpstreamFailure =>
  typeof value === 'object' &&
  value !== null &&
  'provider' in value &&
  typeof value.provider === 'string' &&
  'model' in value &&
  typeof value.model === 'string' &&
  'errorKind' in value &&
  typeof value.errorKind === 'string';

/** The failed models an upstream_failed error names (details.failures), oldest first; empty for any other error. */
export function upstreamFailuresOf(error: GatewayError): UpstreamFailure[] {
  const { failures } = error.details;
  return error.kind === 'upstream_failed' && Array.isArray(failures) ? failures.filter(isFailure) : [];
}

/**
 * Every candidate was skipped. With an open breaker among them the answer says when the first lets a probe
 * through (`retryAt` of its snapshot, or now when one is half-open), so /v1 can send Retry-After.
 */
export function noCandidate(
  skipped: ReadonlyMap<string, SkipReason>,
  retryAtOf: (provider: string) => number | null | undefined,
  now: number,
): GatewayError {
  const providers = [...skipped.keys()];
  if ([...skipped.values()].includes('circuit_open')) {
    const waits = [...skipped]
      .filter(([, reason]) => reason === 'circuit_open')
      .map(([provider]) => Math.max(0, (retryAtOf(provider) ?? now) - now));
    return new GatewayError(
      'unavailable',
      `Model provider unavailable: circuit breaker open for ${providers.join(', ')}`,
      {
        reason: 'circuit_open',
        providers,
        retryAfterMs: Math.min(...waits),
      },
    );
  }
  return new GatewayError(
    'unavailable',
    `Model provider unavailable: ${providers.join(', ')} rejected the API key; skipped while cooling down (check apiKey in config.yaml)`,
    { reason: 'auth_cooldown', providers },
  );
}

/** The request asked for settings (CallSettings paths) that the provider has no way to honour. */
export function settingsRefused(provider: string, settings: readonly string[]): GatewayError {
  return new GatewayError('invalid_params', `Provider '${provider}' cannot honour ${settings.join(', ')}`, {
    provider,
    settings: [...settings],
  });
}
