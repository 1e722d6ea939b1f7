// Polling mode: the getUpdates long-poll loop (offset confirmed by the next poll), its backoff after failures, and the
// health it reports; stop() aborts the poll in flight, so nothing waits out Telegram's long-poll timeout.
import type { Api } from 'grammy';
import type { Logger } from 'pino';
import { retryAfterMsOf } from './delivery-failure.js';
import { grammySignal } from './grammy-signal.js';
import { ALLOWED_UPDATES } from './updates.js';
import { pause } from '../pause.js';

/** Seconds Telegram holds a getUpdates open when there is nothing to deliver. */
export const POLL_TIMEOUT_SECONDS = 25;
/** Updates one poll takes at most (Telegram's own maximum is 100). */
const POLL_LIMIT = 100;
/** The first wait after a failed call, doubled per failure in a row up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** Failures in a row (other than a 429 Telegram timed) before the connection is reported degraded. */
export const DEGRADED_AFTER_FAILURES = 2;
/** How long stop() lets the call that confirms the last updates take (Telegram would deliver them again without it). */
const CONFIRM_TIMEOUT_MS = 2_000;

export interface ConnectionHealth {
  /** A call succeeded: connected (again). */
  succeeded(): void;
  /** A call failed; after DEGRADED_AFTER_FAILURES in a row the connection is reported degraded with `error`. */
  failed(error: unknown): void;
}

export interface PollingDeps {
  api: Api;
  log: Logger;
  health: ConnectionHealth;
  /** Called once per update in order; returns at once. */
  dispatch(update: unknown): void;
  /** Makes sure getMe answered (the bot's username) before the first poll; throws as a Bot API call does. */
  identify(signal: AbortSignal): Promise<void>;
}

/** The wait before the next try: Telegram's own retry_after for a 429, else exponential backoff. */
export function backoffMs(failuresInARow: number, error: unknown): number {
  const named = retryAfterMsOf(error);
  if (named !== undefined) return named;
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, failuresInARow - 1));
}

export interface Poller {
  /** Resolves once the loop ended and the last updates were confirmed. */
  stop(): Promise<void>;
}

export function startPolling({ api, log, health, dispatch, identify }: PollingDeps): Poller {
  const abort = new AbortController();
  const { signal } = abort;
  let offset: number | undefined;
  let isConfirmed = true;

  async function loop(): Promise<void> {
    let failures = 0;
    // A webhook left set makes getUpdates fail with 409; polling mode means this connection receives by polling.
    let isWebhookCleared = false;
    while (!signal.aborted) {
      try {
        await identify(signal);
        if (!isWebhookCleared) {
          await api.deleteWebhook({ drop_pending_updates: false }, grammySignal(signal));
          isWebhookCleared = true;
          // Telegram answered twice: connected, without waiting for the first long poll to come back.
          health.succeeded();
        }
        const updates = await api.getUpdates(
          {
            ...(offset === undefined ? {} : { offset }),
            limit: POLL_LIMIT,
            // After a failure the next poll returns at once, so a recovered connection is reported as soon as it is.
            timeout: failures === 0 ? POLL_TIMEOUT_SECONDS : 0,
            allowed_updates: [...ALLOWED_UPDATES],
          },
          grammySignal(signal),
        );
        // stop() came while the answer was on its way: left unconfirmed, Telegram hands these out again next time.
        if (signal.aborted) break;
        failures = 0;
        health.succeeded();
        for (const update of updates) {
          offset = update.update_id + 1;
          isConfirmed = false;
          dispatch(update);
        }
        if (updates.length === 0) isConfirmed = true;
      } catch (error) {
        if (signal.aborted) break;
        failures += 1;
        // A 429 is Telegram pacing us: it named its wait, and the connection itself is fine.
        if (retryAfterMsOf(error) === undefined) health.failed(error);
        log.debug({ failures, err: error instanceof Error ? error.message : 'unknown' }, 'telegram poll failed');
        await pause(backoffMs(failures, error), signal);
      }
    }
  }

  const running = loop();

  return {
    async stop() {
      abort.abort();
      await running;
      if (offset === undefined || isConfirmed) return;
      // What getUpdates handed out last is confirmed only by a later call with a higher offset.
      await api
        .getUpdates({ offset, limit: 1, timeout: 0 }, grammySignal(AbortSignal.timeout(CONFIRM_TIMEOUT_MS)))
        .catch((error: unknown) =>
          log.debug({ err: error instanceof Error ? error.message : 'unknown' }, 'telegram offset not confirmed'),
        );
    },
  };
}
