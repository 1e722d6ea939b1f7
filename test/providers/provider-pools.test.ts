// Each provider's keep-alive pool: built once per providers: config, swapped on reload (running calls finish), closed by close().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/errors.js';
import { validateConfig } from '../../src/config/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callRequest, collect, createRouterFixture, textOf } from './router-fixture.js';

const ref = { provider: 'local', modelId: 'm1' };

describe('provider connection pools', () => {
  let first: FakeLlm;
  let second: FakeLlm;
  beforeAll(async () => {
    first = await startFakeLlm();
    second = await startFakeLlm();
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  it('sends consecutive calls to a provider over kept-alive connections of one pool, not one connection each', async () => {
    first.reset();
    const fixture = createRouterFixture({
      local: { type: 'openai-compatible', baseUrl: first.baseUrl, models: [{ id: 'm1' }] },
    });
    const calls = 6;
    for (let call = 0; call < calls; call += 1)
      expect((await collect(fixture.router.stream(callRequest(ref)))).error).toBeUndefined();
    expect(first.chatRequests()).toHaveLength(calls);
    // undici may hand the next call a second socket while the first is being returned; never one per call.
    expect(new Set(first.chatRequests().map((request) => request.remotePort)).size).toBeLessThanOrEqual(2);
    await fixture.router.close();
  });

  it('moves new calls to the reloaded provider while a running call finishes on the old pool', async () => {
    first.reset();
    second.reset();
    const fixture = createRouterFixture({
      local: { type: 'openai-compatible', baseUrl: first.baseUrl, models: [{ id: 'm1' }] },
    });
    first.script({ deltas: ['slow ', 'but ', 'whole'], chunkDelayMs: 100 });
    const running = fixture.router.stream(callRequest(ref))[Symbol.asyncIterator]();
    const firstEvent = await running.next();
    expect(firstEvent.value).toMatchObject({ type: 'text-delta', text: 'slow ' });

    fixture.router.reload(
      validateConfig(
        { providers: { local: { type: 'openai-compatible', baseUrl: second.baseUrl, models: [{ id: 'm1' }] } } },
        'test',
      ).providers,
    );
    second.script({ text: 'from the new one' });
    expect(textOf((await collect(fixture.router.stream(callRequest(ref)))).events)).toBe('from the new one');

    let rest = '';
    for (let next = await running.next(); next.done !== true; next = await running.next()) {
      if (next.value.type === 'text-delta') rest += next.value.text;
    }
    expect(rest).toBe('but whole');
    expect(first.chatRequests()).toHaveLength(1);
    expect(second.chatRequests()).toHaveLength(1);
    await fixture.router.close();
  });

  it('fails calls after close() instead of opening new connections', async () => {
    first.reset();
    const fixture = createRouterFixture({
      local: { type: 'openai-compatible', baseUrl: first.baseUrl, models: [{ id: 'm1' }] },
    });
    await fixture.router.close();
    const { error } = await collect(fixture.router.stream(callRequest(ref)));
    expect(isGatewayError(error) && error.kind).toBe('upstream_failed');
    expect(first.chatRequests()).toHaveLength(0);
  });
});
