// The upstream's error message as it travels (DESIGN §3 "upstream failures"): secrets masked, ids and model names kept,
// at most 500 characters; and each wire error carries it.
import { describe, expect, it } from 'vitest';
import {
  errorFromResponse,
  errorFromStreamPayload,
  protocolError,
  toProviderCallError,
} from '../../../src/providers/wire/errors.js';
import {
  maskLiterals,
  UPSTREAM_MESSAGE_MAX_CHARS,
  upstreamMessageOf,
} from '../../../src/providers/wire/upstream-message.js';

describe('upstream messages', () => {
  it.each([
    [
      'Incorrect API key provided: sk-proj-abcdEFGH1234ijklMNOP5678qrst. See https://platform.openai.com/account/api-keys.',
      'Incorrect API key provided: ***. See https://platform.openai.com/account/api-keys.',
    ],
    [
      'refused (Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl)',
      'refused (Authorization: Bearer ***)',
    ],
    [
      'bad key at https://example.test/v1beta/models?key=AIzaSyA1234567890abcdefghijklmnopqrstu&alt=sse',
      'bad key at https://example.test/v1beta/models?key=***&alt=sse',
    ],
    ['cannot reach postgres://admin:hunter2@db.internal:5432/x', 'cannot reach postgres://***@db.internal:5432/x'],
    [
      '{"api_key": "abcd1234efgh", "password":"p@ssw0rd"} token=zzzzzzzz',
      '{"api_key": "***", "password":"***"} token=***',
    ],
    ['AWS said AKIAIOSFODNN7EXAMPLE and ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'AWS said *** and ***'],
    ['opaque 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 value', 'opaque *** value'],
  ])('masks secrets in %j', (raw, shown) => {
    expect(upstreamMessageOf(raw)).toBe(shown);
  });

  it('keeps what helps: token counts, model names, request ids', () => {
    const texts = [
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      'model meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo not found; request id 123e4567-e89b-12d3-a456-426614174000',
      'Invalid value for max_tokens: 99999999 is too large',
    ];
    for (const text of texts) expect(upstreamMessageOf(text)).toBe(text);
  });

  it('collapses whitespace, caps at 500 characters and drops an empty message', () => {
    expect(upstreamMessageOf('  upstream\n\n  exploded  ')).toBe('upstream exploded');
    const capped = upstreamMessageOf(`upstream ${'word '.repeat(400)}`);
    expect(capped?.length).toBe(UPSTREAM_MESSAGE_MAX_CHARS + 1);
    expect(capped?.endsWith('…')).toBe(true);
    expect(upstreamMessageOf(' \n ')).toBeUndefined();
    expect(upstreamMessageOf(undefined)).toBeUndefined();
  });

  it('masks a configured key wherever it appears literally, but not a key too short to be told from words', () => {
    expect(maskLiterals('your key local-key-9 is wrong', ['local-key-9'])).toBe('your key *** is wrong');
    expect(maskLiterals('the key is wrong', ['key'])).toBe('the key is wrong');
  });

  it("carries each failure's message: error bodies, plain bodies, stream frames, protocol breaks, socket codes", () => {
    expect(
      errorFromResponse(500, {}, JSON.stringify({ error: { message: 'upstream exploded', type: 'server_error' } }))
        .upstreamMessage,
    ).toBe('upstream exploded');
    expect(errorFromResponse(502, {}, 'upstream connect error').upstreamMessage).toBe('upstream connect error');
    expect(errorFromResponse(502, {}, '<html><body>Bad Gateway</body></html>').upstreamMessage).toBeUndefined();
    expect(
      errorFromStreamPayload({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })
        .upstreamMessage,
    ).toBe('Overloaded');
    expect(protocolError('chat completion stream ended before a finish_reason').upstreamMessage).toBe(
      'chat completion stream ended before a finish_reason',
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(toProviderCallError(refused, new AbortController().signal, false)).toMatchObject({
      kind: 'network',
      upstreamMessage: 'ECONNREFUSED',
    });
  });
});
