// Per-provider circuit breakers: closed → open after N consecutive failures → half-open after a cooldown → closed on success.
import type { EventBus } from '../events/index.js';
import { PROVIDER_LIMITS } from './limits.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerSnapshot {
  state: BreakerState;
  consecutiveFailures: number;
  /** Epoch ms when the breaker last opened; null while closed. */
  openedAt: number | null;
  /** Epoch ms from which a half-open probe is allowed; null while closed. */
  retryAt: number | null;
}

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. Default PROVIDER_LIMITS.breakerFailureThreshold. */
  failureThreshold?: number;
  /** Time an open breaker waits before letting one probe call through, in ms. Default PROVIDER_LIMITS.breakerCooldownMs. */
  cooldownMs?: number;
}

export interface ProviderBreakersDeps extends CircuitBreakerOptions {
  events: EventBus;
  now: () => number;
}

export interface ProviderBreakers {
  /**
   * Whether a call to `provider` may start now. An open breaker past its cooldown turns half-open and lets
   * exactly one probe through; further calls wait for that probe's verdict.
   */
  tryAcquire(provider: string): boolean;
  recordSuccess(provider: string): void;
  recordFailure(provider: string): void;
  /** The call ended without a verdict (aborted, or the consumer stopped reading): frees a half-open probe slot. */
  release(provider: string): void;
  snapshot(provider: string): BreakerSnapshot;
}

interface Breaker {
  state: BreakerState;
  failures: number;
  openedAt: number | null;
  isProbeInFlight: boolean;
}

export function createProviderBreakers({
  events,
  now,
  failureThreshold = PROVIDER_LIMITS.breakerFailureThreshold,
  cooldownMs = PROVIDER_LIMITS.breakerCooldownMs,
}: ProviderBreakersDeps): ProviderBreakers {
  if (!Number.isInteger(failureThreshold) || failureThreshold < 1)
    throw new TypeError('failureThreshold must be a positive integer');
  if (!(cooldownMs >= 0)) throw new TypeError('cooldownMs must be zero or more');
  const breakers = new Map<string, Breaker>();

  function breakerOf(provider: string): Breaker {
    let breaker = breakers.get(provider);
    if (breaker === undefined) {
      breaker = { state: 'closed', failures: 0, openedAt: null, isProbeInFlight: false };
      breakers.set(provider, breaker);
    }
    return breaker;
  }

  /** Every state change goes through here, so the events match the transitions exactly. */
  function transition(provider: string, breaker: Breaker, next: BreakerState): void {
    const previous = breaker.state;
    breaker.state = next;
    breaker.isProbeInFlight = false;
    if (next === 'open') breaker.openedAt = now();
    if (next === 'closed') {
      breaker.openedAt = null;
      breaker.failures = 0;
    }
    if (previous === 'closed' && next === 'open')
      events.emit('provider:degraded', { provider, failures: breaker.failures });
    if (previous !== 'closed' && next === 'closed') events.emit('provider:recovered', { provider });
  }

  return {
    tryAcquire(provider) {
      const breaker = breakerOf(provider);
      if (breaker.state === 'closed') return true;
      if (breaker.state === 'open') {
        if (now() < (breaker.openedAt ?? 0) + cooldownMs) return false;
        transition(provider, breaker, 'half-open');
      }
      if (breaker.isProbeInFlight) return false;
      breaker.isProbeInFlight = true;
      return true;
    },
    recordSuccess(provider) {
      const breaker = breakerOf(provider);
      if (breaker.state === 'closed') breaker.failures = 0;
      else transition(provider, breaker, 'closed');
    },
    recordFailure(provider) {
      const breaker = breakerOf(provider);
      breaker.failures += 1;
      if (breaker.state === 'half-open') transition(provider, breaker, 'open');
      else if (breaker.state === 'closed' && breaker.failures >= failureThreshold)
        transition(provider, breaker, 'open');
    },
    release(provider) {
      breakerOf(provider).isProbeInFlight = false;
    },
    snapshot(provider) {
      const breaker = breakerOf(provider);
      const isOpenish = breaker.state !== 'closed' && breaker.openedAt !== null;
      return {
        state: breaker.state,
        consecutiveFailures: breaker.failures,
        openedAt: breaker.openedAt,
        retryAt: isOpenish ? (breaker.openedAt ?? 0) + cooldownMs : null,
      };
    },
  };
}

export interface AuthCooldownsDeps {
  events: EventBus;
  now: () => number;
  /** How long a provider is skipped after a 401/403, in ms. Default 60000. */
  cooldownMs?: number;
}

export interface AuthCooldowns {
  start(provider: string): void;
  isCoolingDown(provider: string): boolean;
}

/** After an authentication failure the provider is skipped for a while, without counting toward its breaker. */
export function createAuthCooldowns({
  events,
  now,
  cooldownMs = PROVIDER_LIMITS.authCooldownMs,
}: AuthCooldownsDeps): AuthCooldowns {
  const until = new Map<string, number>();
  return {
    start(provider) {
      until.set(provider, now() + cooldownMs);
      events.emit('model:auth_cooldown', { provider, cooldownMs });
    },
    isCoolingDown(provider) {
      const end = until.get(provider);
      if (end === undefined) return false;
      if (now() < end) return true;
      until.delete(provider);
      return false;
    },
  };
}
