// Classification of failed wire calls: Retry-After forms, the three providers' error bodies, mid-stream errors, socket failures.
import { describe, expect, it } from 'vitest';
import {
  errorFields,
  errorFromResponse,
  errorFromStreamPayload,
  ProviderCallError,
  retryAfterMsOf,
  toProviderCallError,
} from '../../../src/providers/wire/errors.js';

describe('wire error classification', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads Retry-After as seconds, fractional seconds or an HTTP date, and prefers retry-after-ms', () => {
    expect(retryAfterMsOf({ 'retry-after': '3' }, now)).toBe(3_000);
    expect(retryAfterMsOf({ 'retry-after': '0.5' }, now)).toBe(500);
    expect(retryAfterMsOf({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }, now)).toBe(7_000);
    expect(retryAfterMsOf({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, now)).toBe(0);
    expect(retryAfterMsOf({ 'retry-after': '3', 'retry-after-ms': '1234' }, now)).toBe(1_234);
    expect(retryAfterMsOf({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMsOf({ 'retry-after': '-2' }, now)).toBeUndefined();
    expect(retryAfterMsOf({}, now)).toBeUndefined();
  });

  it("reads each provider's error body shape", () => {
    expect(
      errorFields({
        error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' },
      }),
    ).toMatchObject({
      type: 'requests',
      message: 'Rate limit reached',
      code: 'rate_limit_exceeded',
    });
    expect(errorFields({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toMatchObject({
      type: 'overloaded_error',
      message: 'Overloaded',
    });
    expect(
      errorFields([{ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }]),
    ).toMatchObject({
      type: 'UNAVAILABLE',
      message: 'The model is overloaded.',
      code: 503,
    });
    expect(errorFields({ ok: true })).toBeUndefined();
    expect(errorFields('nope')).toBeUndefined();
  });

  it('classifies an HTTP error by its status and keeps a short detail, never in the message', () => {
    const long = 'x'.repeat(1_000);
    const failure = errorFromResponse(
      400,
      {},
      JSON.stringify({ error: { message: long, type: 'invalid_request_error' } }),
    );
    expect(failure).toMatchObject({ kind: 'bad_request', statusCode: 400, retryAfterMs: undefined });
    expect(failure.detail?.length).toBeLessThanOrEqual(301);
    expect(failure.message).toBe('model call failed (bad_request, HTTP 400)');
    expect(
      errorFromResponse(529, {}, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    ).toMatchObject({
      kind: 'server',
      detail: 'overloaded_error: Overloaded',
    });
    expect(errorFromResponse(502, {}, '<html>Bad Gateway</html>')).toMatchObject({
      kind: 'server',
      detail: '<html>Bad Gateway</html>',
    });
  });

  it('classifies errors that arrive inside a stream by their type, code or numeric status', () => {
    const kind = (payload: unknown) => errorFromStreamPayload(payload).kind;
    expect(kind({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toBe('server');
    expect(kind({ type: 'error', error: { type: 'rate_limit_error', message: '' } })).toBe('rate_limit');
    expect(kind({ error: { message: 'slow', type: 'requests', code: 'rate_limit_exceeded' } })).toBe('rate_limit');
    expect(kind({ error: { code: 401, message: 'bad key', status: 'UNAUTHENTICATED' } })).toBe('auth');
    expect(kind({ error: { code: 502, message: 'Provider returned error' } })).toBe('server');
    expect(kind({ error: { code: 413, message: 'too large' } })).toBe('bad_request');
    expect(kind({ error: { type: 'constructor', message: '' } })).toBe('server');
    expect(kind({ error: 'plain text' })).toBe('server');
  });

  it("turns thrown errors into kinds: the caller's abort first, then our deadline, then socket codes", () => {
    const caller = new AbortController();
    const live = new AbortController().signal;
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const refused = new Error('connect failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(toProviderCallError(reset, live, false)).toMatchObject({
      kind: 'network',
      detail: 'UND_ERR_SOCKET',
      cause: reset,
    });
    expect(toProviderCallError(refused, live, false).kind).toBe('network');
    expect(
      toProviderCallError(Object.assign(new Error('t'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), live, false).kind,
    ).toBe('timeout');
    expect(toProviderCallError(reset, live, true).kind).toBe('timeout');
    expect(toProviderCallError(new Error('surprise'), live, false).kind).toBe('unknown');
    const classified = new ProviderCallError('rate_limit', 429, 2_000, 'detail');
    expect(toProviderCallError(classified, live, false)).toBe(classified);
    const reason = new Error('client left');
    caller.abort(reason);
    expect(toProviderCallError(classified, caller.signal, true)).toMatchObject({ kind: 'aborted', cause: reason });
  });
});
