// Classification of failed model calls into provider error kinds, and which kinds fall back or trip the breaker.
import { describe, expect, it } from 'vitest';
import {
  classifyProviderError,
  countsTowardBreaker,
  describeProviderError,
  isFallbackEligible,
  ProviderCallError,
} from '../../src/providers/error-kind.js';
import { statusKind } from '../../src/providers/wire/index.js';

const httpError = (statusCode: number) =>
  new ProviderCallError(statusKind(statusCode), statusCode, undefined, 'upstream said no');

describe('provider error kinds', () => {
  it.each([
    [401, 'auth'],
    [403, 'auth'],
    [429, 'rate_limit'],
    [408, 'timeout'],
    [500, 'server'],
    [502, 'server'],
    [529, 'server'],
    [400, 'bad_request'],
    [404, 'bad_request'],
    [422, 'bad_request'],
  ])('maps HTTP %i to %s', (status, kind) => {
    expect(classifyProviderError(httpError(status))).toBe(kind);
  });

  it('maps connection failures, aborts and anything else that reaches it unclassified', () => {
    expect(classifyProviderError(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe('network');
    expect(classifyProviderError(Object.assign(new Error('socket'), { code: 'UND_ERR_SOCKET' }))).toBe('network');
    expect(classifyProviderError(new DOMException('stop', 'AbortError'))).toBe('aborted');
    expect(classifyProviderError(new Error('something odd'))).toBe('unknown');
    expect(classifyProviderError('not even an error')).toBe('unknown');
  });

  it('falls back on everything but a bad request or an abort; auth and bad requests spare the breaker', () => {
    expect((['auth', 'rate_limit', 'server', 'timeout', 'network', 'unknown'] as const).every(isFallbackEligible)).toBe(
      true,
    );
    expect(isFallbackEligible('bad_request')).toBe(false);
    expect(isFallbackEligible('aborted')).toBe(false);
    expect(countsTowardBreaker('server')).toBe(true);
    expect(countsTowardBreaker('auth')).toBe(false);
    expect(countsTowardBreaker('bad_request')).toBe(false);
  });

  it('describes a failure by kind and status only, never the upstream message', () => {
    expect(describeProviderError(httpError(503))).toBe('server (HTTP 503)');
    expect(describeProviderError(new ProviderCallError('timeout', undefined, undefined, undefined))).toBe('timeout');
    expect(describeProviderError(httpError(401))).not.toContain('upstream said no');
  });
});
