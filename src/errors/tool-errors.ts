// Errors of the built-in tools: media files, the browser and its tabs, audio transcription.
import { GatewayError, invalidParams, notFound } from './gateway-error.js';

/** A media id the store has no record of (spec "Media routes": 404). */
export const mediaNotFound = (id: string) => notFound(`Media not found: ${id}`, { param: 'id' });

/** A media file whose time-to-live has passed, swept or not yet (spec "Media routes": 410). */
export const mediaExpired = (id: string) => new GatewayError('gone', `Media ${id} has expired`, { param: 'id' });

/** A media id with characters other than letters, digits, dot, hyphen or underscore (spec "Media routes": 400). */
export const invalidMediaId = () =>
  new GatewayError(
    'invalid_params',
    'Media id must use only letters, digits, dot, hyphen or underscore, and not start with a dot',
    { param: 'id' },
  );

/** A file over `media.maxBytes`; the limit is named so the saver can shrink it or the operator raise it. */
export const mediaTooLarge = (size: number, maxBytes: number) =>
  new GatewayError('payload_too_large', `Media file of ${size} bytes exceeds media.maxBytes (${maxBytes} bytes)`, {
    param: 'data',
    maxBytes,
  });

/** No Chromium at `browser.executablePath`, or it would not start: how to get one is part of the message. */
export const browserUnavailable = (executablePath: string, reason = 'is not installed') =>
  new GatewayError(
    'unavailable',
    `Chromium at ${executablePath} ${reason}: install it with 'apt-get install chromium' or set browser.executablePath`,
    { executablePath },
  );

/** A browser call that did not finish within `browser.timeoutMs` (or the caller went away). */
export const browserTimeout = (operation: string, timeoutMs: number) =>
  new GatewayError('upstream_failed', `${operation} did not finish within ${timeoutMs} ms (browser.timeoutMs)`, {
    timeoutMs,
  });

/** The page or the browser refused an operation (a network error, a missing element, a closed browser). */
export const browserFailed = (operation: string, reason: string) =>
  new GatewayError('upstream_failed', `${operation} failed: ${reason}`);

/** A URL the browser may not load: a scheme other than http/https, or a private address without browser.allowPrivateNetwork. */
export const browserUrlRefused = (url: string, reason: string, param = 'url') =>
  new GatewayError('forbidden', `Refused to load ${url}: ${reason}`, { param });

/** browser.open with `browser.maxTabs` tabs already open. */
export const tooManyTabs = (maxTabs: number) =>
  new GatewayError('conflict', `At most ${maxTabs} tabs may be open (browser.maxTabs); close one first`, { maxTabs });

export const tabNotFound = (tabId: string, param = 'tabId') => notFound(`Tab not found: ${tabId}`, { param });

export const unknownBrowserAction = (action: string, known: readonly string[]) =>
  invalidParams(`Unknown action '${action}': expected one of ${known.join(', ')}`, 'action');

/** `save: true` on a gateway whose media store is not wired. */
export const mediaStoreUnavailable = () =>
  new GatewayError('unavailable', 'No media store is configured, so nothing can be saved', { param: 'save' });

/** audio.transcribe with every slot busy and its waiting queue full (`limit`: audio.maxWaiting or audio.maxQueuedBytes). */
export const audioBusy = (limit: string, retryAfterMs: number) =>
  new GatewayError('unavailable', `Too many audio.transcribe calls are waiting (${limit}); retry later`, {
    retryAfterMs,
  });
