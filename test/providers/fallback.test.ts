// Fallback across models: which failures move on to the next model, the events emitted, and what is finally thrown.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError, isGatewayError } from '../../src/errors.js';
import { NO_PROVIDER_MESSAGE, type ModelRef } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callRequest, collect, createRouterFixture, finishOf, textOf, type RouterFixture } from './router-fixture.js';

const primary: ModelRef = { provider: 'primary', modelId: 'model-a' };
const backup: ModelRef = { provider: 'backup', modelId: 'model-b' };

function gatewayError(error: unknown): GatewayError {
  if (!isGatewayError(error)) throw new Error(`expected a GatewayError, got ${String(error)}`);
  return error;
}

describe('model router fallback', () => {
  let primaryLlm: FakeLlm;
  let backupLlm: FakeLlm;
  let fixture: RouterFixture;

  beforeAll(async () => {
    [primaryLlm, backupLlm] = await Promise.all([startFakeLlm(), startFakeLlm()]);
  });
  afterAll(async () => {
    await Promise.all([primaryLlm.close(), backupLlm.close()]);
  });
  beforeEach(() => {
    primaryLlm.reset();
    backupLlm.reset();
    fixture = createRouterFixture({
      primary: { type: 'openai-compatible', baseUrl: primaryLlm.baseUrl, timeoutMs: 300, models: [{ id: 'model-a' }] },
      backup: {
        type: 'anthropic',
        baseUrl: backupLlm.baseUrl,
        apiKey: 'key',
        models: [{ id: 'model-b', cost: { input: 1, output: 2 } }],
      },
    });
  });

  it.each([
    [500, 'server'],
    [503, 'server'],
    [429, 'rate_limit'],
    [401, 'auth'],
  ])('moves to the next model when the primary answers HTTP %i before any output', async (status, errorKind) => {
    primaryLlm.script({ status, errorMessage: 'upstream detail' });
    backupLlm.script({ text: 'from the backup', usage: { inputTokens: 100, outputTokens: 10 } });
    const { events, error } = await collect(fixture.router.stream(callRequest(primary, { fallbacks: [backup] })));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('from the backup');
    const finish = finishOf(events);
    expect(finish.model).toEqual(backup);
    expect(finish.costUsd).toBeCloseTo((100 * 1 + 10 * 2) / 1e6, 12);
    expect(fixture.eventsNamed('model:fallback_attempt').map((event) => event.payload)).toEqual([
      { agentId: 'default', from: 'primary/model-a', to: 'backup/model-b', errorKind },
    ]);
    expect(fixture.eventsNamed('model:fallback_exhausted')).toEqual([]);
  });

  it('moves on when the connection fails and when the provider times out', async () => {
    primaryLlm.script({ dropConnection: true }, { text: 'too late', delayMs: 5_000 });
    backupLlm.script({ text: 'first backup answer' }, { text: 'second backup answer' });
    const first = await collect(fixture.router.stream(callRequest(primary, { fallbacks: [backup] })));
    const second = await collect(fixture.router.stream(callRequest(primary, { fallbacks: [backup] })));
    expect([textOf(first.events), textOf(second.events)]).toEqual(['first backup answer', 'second backup answer']);
    expect(fixture.eventsNamed('model:fallback_attempt').map((event) => event.payload.errorKind)).toEqual([
      'network',
      'timeout',
    ]);
  });

  it("throws upstream_failed naming each model's kind, status and masked upstream message, and emits fallback_exhausted", async () => {
    primaryLlm.script({ status: 500, errorMessage: 'internal stack trace for sk-live-0123456789abcdefghijklmn' });
    backupLlm.script({ status: 529, errorMessage: 'overloaded detail' });
    const { error } = await collect(
      fixture.router.stream(callRequest(primary, { fallbacks: [backup], agentId: 'helper' })),
    );
    const failure = gatewayError(error);
    expect(failure.kind).toBe('upstream_failed');
    // DESIGN §3 "upstream failures": every surface gets the provider's own message and status, secrets masked.
    expect(failure.message).toBe(
      'Model call to backup/model-b failed: server (HTTP 529): overloaded detail (2 models tried; primary/model-a failed: server (HTTP 500): internal stack trace for ***)',
    );
    expect(failure.details).toMatchObject({
      errorKind: 'server',
      attempts: 2,
      statusCode: 529,
      upstreamMessage: 'overloaded detail',
      failures: [
        {
          provider: 'primary',
          model: 'model-a',
          errorKind: 'server',
          statusCode: 500,
          message: 'internal stack trace for ***',
        },
        { provider: 'backup', model: 'model-b', errorKind: 'server', statusCode: 529, message: 'overloaded detail' },
      ],
    });
    expect(fixture.eventsNamed('model:fallback_exhausted').map((event) => event.payload)).toEqual([
      { agentId: 'helper', attempts: 2 },
    ]);
  });

  it('does not fall back on a bad request: the request, not the provider, is at fault', async () => {
    primaryLlm.script({ status: 400, errorMessage: 'context too long' });
    const { error } = await collect(fixture.router.stream(callRequest(primary, { fallbacks: [backup] })));
    expect(gatewayError(error)).toMatchObject({ kind: 'upstream_failed', details: { errorKind: 'bad_request' } });
    expect(backupLlm.chatRequests()).toHaveLength(0);
    expect(fixture.router.breakerState('primary')?.consecutiveFailures).toBe(0);
  });

  it('with no fallbacks, a failure is upstream_failed and no fallback event is emitted', async () => {
    primaryLlm.script({ status: 502 });
    const { error } = await collect(fixture.router.stream(callRequest(primary)));
    expect(gatewayError(error)).toMatchObject({
      kind: 'upstream_failed',
      details: { errorKind: 'server', attempts: 1 },
    });
    expect(fixture.eventsNamed('model:fallback_exhausted')).toEqual([]);
  });

  it('skips a provider for the auth cooldown after a 401, without counting it toward the breaker', async () => {
    primaryLlm.script({ status: 401 });
    await collect(fixture.router.stream(callRequest(primary, { fallbacks: [backup] })));
    expect(fixture.eventsNamed('model:auth_cooldown').map((event) => event.payload)).toEqual([
      { provider: 'primary', cooldownMs: 60_000 },
    ]);
    expect(fixture.router.breakerState('primary')).toMatchObject({ state: 'closed', consecutiveFailures: 0 });

    const during = await collect(fixture.router.stream(callRequest(primary, { fallbacks: [backup] })));
    expect(textOf(during.events)).toMatch(/^Echo: /);
    expect(primaryLlm.chatRequests()).toHaveLength(1);
    expect(fixture.eventsNamed('model:fallback_attempt').at(-1)?.payload.errorKind).toBe('auth_cooldown');

    const alone = await collect(fixture.router.stream(callRequest(primary)));
    expect(gatewayError(alone.error)).toMatchObject({ kind: 'unavailable', details: { reason: 'auth_cooldown' } });

    fixture.clock.advance(60_000);
    const after = await collect(fixture.router.stream(callRequest(primary)));
    expect(after.error).toBeUndefined();
    expect(primaryLlm.chatRequests()).toHaveLength(2);
  });

  it("rethrows the caller's abort before any output as-is: no fallback, no breaker count", async () => {
    primaryLlm.script({ text: 'never sent', delayMs: 5_000 });
    const controller = new AbortController();
    const reason = new DOMException('client left', 'AbortError');
    setTimeout(() => controller.abort(reason), 30);
    const { error } = await collect(
      fixture.router.stream(callRequest(primary, { fallbacks: [backup], signal: controller.signal })),
    );
    expect(error).toBe(reason);
    expect(backupLlm.chatRequests()).toHaveLength(0);
    expect(fixture.eventsNamed('model:fallback_attempt')).toEqual([]);
    expect(fixture.router.breakerState('primary')?.consecutiveFailures).toBe(0);
  });

  it('a consumer that stops reading mid-stream leaves the provider healthy and usable', async () => {
    primaryLlm.script({ text: 'a b c d e f', chunkDelayMs: 50 });
    for await (const event of fixture.router.stream(callRequest(primary))) {
      if (event.type === 'text-delta') break;
    }
    const next = await collect(fixture.router.stream(callRequest(primary)));
    expect(textOf(next.events)).toMatch(/^Echo: /);
    expect(fixture.router.breakerState('primary')).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });

  it('answers unavailable/no_provider with how to configure one when no provider is configured', async () => {
    const empty = createRouterFixture({});
    const { error } = await collect(empty.router.stream(callRequest(primary)));
    const failure = gatewayError(error);
    expect(failure).toMatchObject({ kind: 'unavailable', details: { reason: 'no_provider' } });
    expect(failure.message).toBe(NO_PROVIDER_MESSAGE);
    expect(failure.message).toContain('providers:');
    expect(empty.router.providers()).toEqual([]);
    expect(empty.router.catalog()).toEqual([]);
  });

  it('skips fallbacks naming an unconfigured provider and refuses a call with no configured candidate', async () => {
    const ghost: ModelRef = { provider: 'ghost', modelId: 'x' };
    const onlyGhost = await collect(fixture.router.stream(callRequest(ghost)));
    expect(gatewayError(onlyGhost.error)).toMatchObject({
      kind: 'unavailable',
      details: { reason: 'unknown_provider' },
    });
    const withGhost = await collect(fixture.router.stream(callRequest(primary, { fallbacks: [ghost, backup] })));
    expect(withGhost.error).toBeUndefined();
  });
});
