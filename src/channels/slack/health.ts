// The health one Slack connection reports: connecting → connected, degraded with the error after repeated failures
// (or at once when the credentials are refused), disconnected at stop; each change is reported once.
import type { ChannelAdapterEvents, ChannelHealth } from '../types.js';
import { isAuthFailure, type SlackDeliveryFailure } from './slack-errors.js';

/** Consecutive failed calls or connection attempts before the connection counts as degraded. */
export const FAILURES_BEFORE_DEGRADED = 3;

export interface HealthTracker {
  attach(events: ChannelAdapterEvents): void;
  connecting(): void;
  connected(): void;
  /** A connection attempt (or the start check) failed; `attempts` counts consecutive failures. */
  linkFailed(failure: SlackDeliveryFailure, attempts: number): void;
  /** Events API mode: the start check failed; the route still receives, and a later successful call heals. */
  checkFailed(failure: SlackDeliveryFailure): void;
  callSucceeded(): void;
  callFailed(failure: SlackDeliveryFailure): void;
  disconnected(): void;
}

export function createHealthTracker(): HealthTracker {
  let events: ChannelAdapterEvents | undefined;
  let state: ChannelHealth | undefined;
  let lastError: string | undefined;
  /** Whether the link itself (the socket, or the Events API route) is up; only then can calls heal a degraded state. */
  let isLinkUp = false;
  let callFailures = 0;

  function set(next: ChannelHealth, error?: string): void {
    if (next === state && error === lastError) return;
    state = next;
    lastError = error;
    events?.health(next, error);
  }

  return {
    attach(target) {
      events = target;
    },
    connecting() {
      isLinkUp = false;
      set('connecting');
    },
    connected() {
      isLinkUp = true;
      callFailures = 0;
      set('connected');
    },
    linkFailed(failure, attempts) {
      isLinkUp = false;
      if (attempts >= FAILURES_BEFORE_DEGRADED || isAuthFailure(failure)) set('degraded', failure.message);
      else set('connecting');
    },
    checkFailed(failure) {
      isLinkUp = true;
      set('degraded', failure.message);
    },
    callSucceeded() {
      callFailures = 0;
      if (isLinkUp && state === 'degraded') set('connected');
    },
    callFailed(failure) {
      // A refused call (a bad channel, a missing scope) says nothing about the connection; outages and bad tokens do.
      if (!failure.retryable && !isAuthFailure(failure)) return;
      callFailures += 1;
      if (callFailures >= FAILURES_BEFORE_DEGRADED || isAuthFailure(failure)) set('degraded', failure.message);
    },
    disconnected() {
      isLinkUp = false;
      set('disconnected');
    },
  };
}
