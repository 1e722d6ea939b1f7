// Classifies failed wire calls (HTTP statuses, provider error bodies, mid-stream error frames, socket errors) as ProviderCallError.
import type { IncomingHttpHeaders } from 'node:http';
import { upstreamMessageOf } from './upstream-message.js';

export type ProviderErrorKind =
  'auth' | 'rate_limit' | 'server' | 'timeout' | 'network' | 'bad_request' | 'aborted' | 'unknown';

/** Provider messages can be long (a whole schema echoed back); the log needs the gist only. */
export const ERROR_DETAIL_MAX_CHARS = 300;

export interface ProviderCallErrorOptions extends ErrorOptions {
  /** What the upstream said about the failure, or how it broke the protocol; masked and capped here (upstream-message.ts). */
  upstreamMessage?: string | undefined;
}

/**
 * A failed call, classified. The message is body-free; `detail` carries the provider's own error type and message
 * for the log only. `upstreamMessage` is what travels to clients and reports (DESIGN §3 "upstream failures"):
 * the upstream's own message with secret-looking strings masked, at most 500 characters.
 */
export class ProviderCallError extends Error {
  readonly upstreamMessage: string | undefined;

  constructor(
    readonly kind: ProviderErrorKind,
    readonly statusCode: number | undefined,
    /** How long the provider asked us to wait (Retry-After, retry-after-ms or Gemini's RetryInfo), in ms. */
    readonly retryAfterMs: number | undefined,
    readonly detail: string | undefined,
    { upstreamMessage, ...options }: ProviderCallErrorOptions = {},
  ) {
    super(
      statusCode === undefined ? `model call failed (${kind})` : `model call failed (${kind}, HTTP ${statusCode})`,
      options,
    );
    this.name = 'ProviderCallError';
    this.upstreamMessage = upstreamMessageOf(upstreamMessage);
  }
}

export function statusKind(statusCode: number): ProviderErrorKind {
  if (statusCode === 401 || statusCode === 403) return 'auth';
  if (statusCode === 429) return 'rate_limit';
  if (statusCode === 408) return 'timeout';
  // Anthropic's 529 overloaded_error lands here too: a server-side condition worth a fallback; the detail keeps the name.
  if (statusCode >= 500) return 'server';
  if (statusCode >= 400) return 'bad_request';
  return 'server';
}

/** Error `type` (OpenAI, Anthropic) or `status` (Gemini) strings that arrive without an HTTP status, mid-stream; a Map, since the keys come from upstream. */
const TYPE_KIND: ReadonlyMap<string, ProviderErrorKind> = new Map<string, ProviderErrorKind>([
  ['authentication_error', 'auth'],
  ['permission_error', 'auth'],
  ['invalid_api_key', 'auth'],
  ['UNAUTHENTICATED', 'auth'],
  ['PERMISSION_DENIED', 'auth'],
  ['rate_limit_error', 'rate_limit'],
  ['rate_limit_exceeded', 'rate_limit'],
  ['insufficient_quota', 'rate_limit'],
  ['RESOURCE_EXHAUSTED', 'rate_limit'],
  ['invalid_request_error', 'bad_request'],
  ['not_found_error', 'bad_request'],
  ['request_too_large', 'bad_request'],
  ['context_length_exceeded', 'bad_request'],
  ['INVALID_ARGUMENT', 'bad_request'],
  ['FAILED_PRECONDITION', 'bad_request'],
  ['NOT_FOUND', 'bad_request'],
  ['OUT_OF_RANGE', 'bad_request'],
  ['timeout_error', 'timeout'],
  ['DEADLINE_EXCEEDED', 'timeout'],
  ['overloaded_error', 'server'],
  ['api_error', 'server'],
  ['server_error', 'server'],
  ['INTERNAL', 'server'],
  ['UNAVAILABLE', 'server'],
]);

interface ErrorFields {
  type: string | undefined;
  message: string | undefined;
  code: unknown;
  retryDelayMs: number | undefined;
}

/**
 * Reads the three providers' error envelopes: OpenAI `{error: {message, type, code}}`, Anthropic
 * `{type: 'error', error: {type, message}}`, Gemini `{error: {code, message, status, details}}` (a JSON
 * array of those on its non-SSE stream route).
 */
export function errorFields(body: unknown): ErrorFields | undefined {
  const envelope: unknown = Array.isArray(body) ? body[0] : body;
  if (typeof envelope !== 'object' || envelope === null || !('error' in envelope)) return undefined;
  const error: unknown = envelope.error;
  if (typeof error === 'string') return { type: undefined, message: error, code: undefined, retryDelayMs: undefined };
  if (typeof error !== 'object' || error === null) return undefined;
  const type =
    'type' in error && typeof error.type === 'string'
      ? error.type
      : 'status' in error && typeof error.status === 'string'
        ? error.status
        : undefined;
  const message = 'message' in error && typeof error.message === 'string' ? error.message : undefined;
  const code = 'code' in error ? error.code : undefined;
  return { type, message, code, retryDelayMs: 'details' in error ? retryInfoMs(error.details) : undefined };
}

/** Gemini puts its wait in `details: [{'@type': '…google.rpc.RetryInfo', retryDelay: '34s'}]`. */
function retryInfoMs(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (
      typeof detail !== 'object' ||
      detail === null ||
      !('retryDelay' in detail) ||
      typeof detail.retryDelay !== 'string'
    )
      continue;
    const seconds = Number.parseFloat(detail.retryDelay);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  }
  return undefined;
}

function detailOf(fields: ErrorFields | undefined): string | undefined {
  if (fields === undefined) return undefined;
  const code = typeof fields.code === 'string' && fields.code !== fields.type ? ` (${fields.code})` : '';
  const text = `${fields.type ?? 'error'}${code}: ${fields.message ?? ''}`;
  return text.length > ERROR_DETAIL_MAX_CHARS ? `${text.slice(0, ERROR_DETAIL_MAX_CHARS)}…` : text;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The wait a response asks for, in ms: OpenAI's `retry-after-ms` first, then `Retry-After` as delta
 * seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable.
 */
export function retryAfterMsOf(headers: IncomingHttpHeaders, now: number = Date.now()): number | undefined {
  const milliseconds = headerValue(headers, 'retry-after-ms');
  if (milliseconds !== undefined) {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const retryAfter = headerValue(headers, 'retry-after')?.trim();
  if (retryAfter === undefined || retryAfter.length === 0) return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A body that is no error envelope: its text, unless it is an HTML page (a proxy's error page says nothing the status does not). */
function plainBodyMessage(bodyText: string): string | undefined {
  return /^\s*</.test(bodyText) ? undefined : bodyText;
}

/** An HTTP error answer: the status decides the kind, the body feeds the detail, the upstream message (and Gemini's RetryInfo). */
export function errorFromResponse(
  statusCode: number,
  headers: IncomingHttpHeaders,
  bodyText: string,
): ProviderCallError {
  const fields = errorFields(parseQuietly(bodyText));
  const retryAfterMs = retryAfterMsOf(headers) ?? fields?.retryDelayMs;
  return new ProviderCallError(
    statusKind(statusCode),
    statusCode,
    retryAfterMs,
    detailOf(fields) ?? (bodyText.slice(0, ERROR_DETAIL_MAX_CHARS) || undefined),
    {
      upstreamMessage: fields === undefined ? plainBodyMessage(bodyText) : fields.message,
    },
  );
}

/** An error delivered inside a 200 stream: Anthropic's `error` event, an OpenAI or Gemini `{error: …}` data frame. */
export function errorFromStreamPayload(payload: unknown): ProviderCallError {
  const fields = errorFields(payload);
  const numeric = typeof fields?.code === 'number' && fields.code >= 400 && fields.code < 600 ? fields.code : undefined;
  // OpenAI names the cause in `code` when `type` is generic (429: type `requests`, code `rate_limit_exceeded`).
  const byName =
    (fields?.type === undefined ? undefined : TYPE_KIND.get(fields.type)) ??
    (typeof fields?.code === 'string' ? TYPE_KIND.get(fields.code) : undefined);
  const kind = byName ?? (numeric === undefined ? 'server' : statusKind(numeric));
  return new ProviderCallError(kind, undefined, fields?.retryDelayMs, detailOf(fields), {
    upstreamMessage: fields?.message,
  });
}

/** The upstream broke the protocol (unparsable frame, stream cut short); counted as a server failure. The detail is ours and says how. */
export function protocolError(detail: string, cause?: unknown): ProviderCallError {
  return new ProviderCallError('server', undefined, undefined, detail, {
    upstreamMessage: detail,
    ...(cause === undefined ? {} : { cause }),
  });
}

function parseQuietly(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function codeOf(error: unknown): string | undefined {
  for (
    let current: unknown = error, depth = 0;
    typeof current === 'object' && current !== null && depth < 5;
    depth += 1
  ) {
    if ('code' in current && typeof current.code === 'string') return current.code;
    current = 'cause' in current ? current.cause : undefined;
  }
  return undefined;
}

/**
 * Any failure of a call as a ProviderCallError. The caller's abort wins over everything (kind `aborted`,
 * the caller's reason as cause), then our own deadline (`timeout`), then what the error says.
 */
export function toProviderCallError(error: unknown, callerSignal: AbortSignal, isTimedOut: boolean): ProviderCallError {
  if (callerSignal.aborted)
    return new ProviderCallError('aborted', undefined, undefined, undefined, { cause: callerSignal.reason });
  if (isTimedOut) return new ProviderCallError('timeout', undefined, undefined, undefined, { cause: error });
  if (error instanceof ProviderCallError) return error;
  const code = codeOf(error);
  if (code !== undefined && TIMEOUT_CODES.has(code))
    return new ProviderCallError('timeout', undefined, undefined, code, { cause: error, upstreamMessage: code });
  if (code !== undefined && NETWORK_CODES.has(code))
    return new ProviderCallError('network', undefined, undefined, code, { cause: error, upstreamMessage: code });
  const name = error instanceof Error ? error.name : undefined;
  if (name === 'AbortError' || code === 'UND_ERR_ABORTED')
    return new ProviderCallError('aborted', undefined, undefined, undefined, { cause: error });
  return new ProviderCallError('unknown', undefined, undefined, undefined, { cause: error });
}
