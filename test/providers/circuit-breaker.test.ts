// The per-provider circuit breaker: opens after consecutive failures, skips the provider, half-opens, recovers.
import { createEventBus, type BusEvent } from '../../src/events/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/errors.js';
import { createProviderBreakers } from '../../src/providers/circuit-breaker.js';
import type { ModelRef } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callRequest, collect, createRouterFixture, silentLog, textOf, type RouterFixture } from './router-fixture.js';

const flaky: ModelRef = { provider: 'flaky', modelId: 'fake-model' };
const backup: ModelRef = { provider: 'backup', modelId: 'fake-model' };

describe('model router circuit breaker', () => {
  let flakyLlm: FakeLlm;
  let backupLlm: FakeLlm;
  let fixture: RouterFixture;

  beforeAll(async () => {
    [flakyLlm, backupLlm] = await Promise.all([startFakeLlm(), startFakeLlm()]);
  });
  afterAll(async () => {
    await Promise.all([flakyLlm.close(), backupLlm.close()]);
  });
  beforeEach(() => {
    flakyLlm.reset();
    backupLlm.reset();
    fixture = createRouterFixture(
      {
        flaky: { type: 'openai-compatible', baseUrl: flakyLlm.baseUrl, models: [{ id: 'fake-model' }] },
        backup: { type: 'openai-compatible', baseUrl: backupLlm.baseUrl, models: [{ id: 'fake-model' }] },
      },
      { breaker: { failureThreshold: 2, cooldownMs: 10_000 } },
    );
  });

  async function failFlakyTimes(count: number): Promise<void> {
    for (let index = 0; index < count; index += 1) {
      flakyLlm.script({ status: 500 });
      await collect(fixture.router.stream(callRequest(flaky)));
    }
  }

  it('opens after N consecutive failures and emits provider:degraded once', async () => {
    await failFlakyTimes(1);
    expect(fixture.router.breakerState('flaky')).toMatchObject({ state: 'closed', consecutiveFailures: 1 });
    await failFlakyTimes(1);
    expect(fixture.router.breakerState('flaky')).toEqual({
      state: 'open',
      consecutiveFailures: 2,
      openedAt: fixture.clock.now,
      retryAt: fixture.clock.now + 10_000,
    });
    expect(fixture.eventsNamed('provider:degraded').map((event) => event.payload)).toEqual([
      { provider: 'flaky', failures: 2 },
    ]);
  });

  it('a success in between resets the count of consecutive failures', async () => {
    await failFlakyTimes(1);
    await collect(fixture.router.stream(callRequest(flaky)));
    await failFlakyTimes(1);
    expect(fixture.router.breakerState('flaky')).toMatchObject({ state: 'closed', consecutiveFailures: 1 });
  });

  it('skips an open provider: straight to the fallback, or unavailable/circuit_open when none is left', async () => {
    await failFlakyTimes(2);
    const requestsBefore = flakyLlm.chatRequests().length;

    const alone = await collect(fixture.router.stream(callRequest(flaky)));
    expect(isGatewayError(alone.error) && alone.error.kind).toBe('unavailable');
    expect(isGatewayError(alone.error) && alone.error.details.reason).toBe('circuit_open');

    const withBackup = await collect(fixture.router.stream(callRequest(flaky, { fallbacks: [backup] })));
    expect(textOf(withBackup.events)).toMatch(/^Echo: /);
    expect(fixture.eventsNamed('model:fallback_attempt').at(-1)?.payload).toEqual({
      agentId: 'default',
      from: 'flaky/fake-model',
      to: 'backup/fake-model',
      errorKind: 'circuit_open',
    });
    expect(flakyLlm.chatRequests()).toHaveLength(requestsBefore);
  });

  it('half-opens after the cooldown and closes on a successful probe, emitting provider:recovered', async () => {
    await failFlakyTimes(2);
    fixture.clock.advance(9_999);
    expect((await collect(fixture.router.stream(callRequest(flaky)))).error).toBeInstanceOf(Error);
    fixture.clock.advance(1);
    flakyLlm.script({ text: 'back again' });
    const probe = await collect(fixture.router.stream(callRequest(flaky)));
    expect(textOf(probe.events)).toBe('back again');
    expect(fixture.router.breakerState('flaky')).toEqual({
      state: 'closed',
      consecutiveFailures: 0,
      openedAt: null,
      retryAt: null,
    });
    expect(fixture.eventsNamed('provider:recovered').map((event) => event.payload)).toEqual([{ provider: 'flaky' }]);
  });

  it('a failed probe opens the breaker again for another cooldown, without a second degraded event', async () => {
    await failFlakyTimes(2);
    fixture.clock.advance(10_000);
    await failFlakyTimes(1);
    expect(fixture.router.breakerState('flaky')).toMatchObject({ state: 'open', retryAt: fixture.clock.now + 10_000 });
    expect(fixture.eventsNamed('provider:degraded')).toHaveLength(1);
    expect(fixture.eventsNamed('provider:recovered')).toHaveLength(0);
  });

  it('uses 3 failures and 30 s as defaults', async () => {
    fixture = createRouterFixture({ flaky: { type: 'openai-compatible', baseUrl: flakyLlm.baseUrl } });
    await failFlakyTimes(2);
    expect(fixture.router.breakerState('flaky')?.state).toBe('closed');
    await failFlakyTimes(1);
    expect(fixture.router.breakerState('flaky')).toMatchObject({ state: 'open', retryAt: fixture.clock.now + 30_000 });
    expect(fixture.router.breakerState('not-configured')).toBeUndefined();
  });
});

describe('provider breakers', () => {
  function breakersWithClock() {
    const clock = { now: 0 };
    const events: BusEvent[] = [];
    const bus = createEventBus({ now: () => clock.now, log: silentLog });
    bus.subscribe((event) => events.push(event));
    const breakers = createProviderBreakers({
      events: bus,
      now: () => clock.now,
      failureThreshold: 1,
      cooldownMs: 100,
    });
    return { clock, events, breakers };
  }

  it('lets exactly one probe through while half-open; a released probe frees the slot', () => {
    const { clock, breakers } = breakersWithClock();
    breakers.recordFailure('p');
    expect(breakers.tryAcquire('p')).toBe(false);
    clock.now = 100;
    expect(breakers.tryAcquire('p')).toBe(true);
    expect(breakers.snapshot('p').state).toBe('half-open');
    expect(breakers.tryAcquire('p')).toBe(false);
    breakers.release('p');
    expect(breakers.tryAcquire('p')).toBe(true);
  });

  it('refuses nonsensical options at creation', () => {
    const bus = createEventBus({ now: () => 0, log: silentLog });
    expect(() => createProviderBreakers({ events: bus, now: () => 0, failureThreshold: 0 })).toThrow(
      /failureThreshold/,
    );
    expect(() => createProviderBreakers({ events: bus, now: () => 0, cooldownMs: -1 })).toThrow(/cooldownMs/);
  });
});
