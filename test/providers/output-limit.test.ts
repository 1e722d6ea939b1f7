// A model reply past the catalog entry's maxTokens or the provider's maxResponseBytes is cut: the upstream
// request is aborted and the call finishes with `length`, holding no more than the limit.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModelRef } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { callRequest, collect, createRouterFixture, finishOf, textOf, type RouterFixture } from './router-fixture.js';

/** Far past every limit below: a server that ignores max_tokens (the reply is generated as it is sent). */
const HUGE_CHARS = 40_000_000;

const capped: ModelRef = { provider: 'capped', modelId: 'fake-model' };
const bytes: ModelRef = { provider: 'bytes', modelId: 'unlisted-model' };

describe('model reply limits', () => {
  let llm: FakeLlm;
  let fixture: RouterFixture;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
    fixture = createRouterFixture({
      capped: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model', maxTokens: 500 }] },
      bytes: { type: 'openai-compatible', baseUrl: llm.baseUrl, maxResponseBytes: 20_000, models: [] },
    });
  });

  const upstream = () => {
    const request = llm.chatRequests().at(-1);
    if (request === undefined) throw new Error('no upstream request');
    return request;
  };

  it('stops a streamed text reply past the maxTokens estimate, aborts the upstream and finishes with length', async () => {
    llm.script({ huge: { chars: HUGE_CHARS } });
    const { events, error } = await collect(fixture.router.stream(callRequest(capped)));
    expect(error).toBeUndefined();
    expect(finishOf(events)).toMatchObject({ finishReason: 'length', model: capped });
    const text = textOf(events);
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThanOrEqual(500 * 8);
    expect(finishOf(events).usage.outputTokens).toBe(Math.ceil(text.length / 4));
    await expect.poll(() => upstream().closedByClient).toBe(true);
    expect(upstream().streamedChars).toBeLessThan(HUGE_CHARS / 2);
    // Cutting a runaway reply is not a provider failure: the breaker stays closed.
    expect(fixture.router.breakerState('capped')).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });

  it('counts tool-call arguments too', async () => {
    llm.script({ huge: { chars: HUGE_CHARS, as: 'tool-arguments' } });
    const { events, error } = await collect(
      fixture.router.stream(
        callRequest(capped, { tools: [{ name: 'current_time', description: 'now', inputSchema: { type: 'object' } }] }),
      ),
    );
    expect(error).toBeUndefined();
    expect(events.filter((event) => event.type === 'tool-call')).toEqual([]);
    expect(finishOf(events).finishReason).toBe('length');
    await expect.poll(() => upstream().closedByClient).toBe(true);
  });

  it('stops at providers.<name>.maxResponseBytes for a model the catalog does not list', async () => {
    llm.script({ huge: { chars: HUGE_CHARS } });
    const { events, error } = await collect(fixture.router.stream(callRequest(bytes)));
    expect(error).toBeUndefined();
    expect(finishOf(events).finishReason).toBe('length');
    expect(Buffer.byteLength(textOf(events))).toBeLessThanOrEqual(20_000);
    await expect.poll(() => upstream().closedByClient).toBe(true);
  });

  it('keeps the text up to the cap when one delta crosses it, the first one included', async () => {
    // maxTokens 500: the cap is 500 × 4 characters × the margin of 2.
    llm.script({ deltas: ['x'.repeat(10_000), 'never read'] });
    const first = await collect(fixture.router.stream(callRequest(capped)));
    expect(textOf(first.events)).toBe('x'.repeat(4_000));
    expect(finishOf(first.events)).toMatchObject({ finishReason: 'length', usage: { outputTokens: 1_000 } });

    llm.script({ huge: { chars: HUGE_CHARS, deltaChars: 3_000 } });
    const later = await collect(fixture.router.stream(callRequest(capped)));
    expect(
      later.events
        .filter((event) => event.type === 'text-delta')
        .map((event) => event.type === 'text-delta' && event.text.length),
    ).toEqual([3_000, 1_000]);
    expect(finishOf(later.events).finishReason).toBe('length');
  });

  it('cuts at maxResponseBytes on a whole character, never inside a UTF-8 sequence or a surrogate pair', async () => {
    llm.script(
      { deltas: ['é'.repeat(15_000)] },
      { deltas: ['a', '😀'.repeat(6_000)] },
      { deltas: ['ab', '€'.repeat(7_000)] },
    );
    const twoBytes = await collect(fixture.router.stream(callRequest(bytes)));
    expect(textOf(twoBytes.events)).toBe('é'.repeat(10_000));
    // 1 + 4 × 4,999 bytes fit in 20,000; the next emoji would not.
    const pairs = await collect(fixture.router.stream(callRequest(bytes)));
    expect(textOf(pairs.events)).toBe(`a${'😀'.repeat(4_999)}`);
    const threeBytes = await collect(fixture.router.stream(callRequest(bytes)));
    expect(textOf(threeBytes.events)).toBe(`ab${'€'.repeat(6_666)}`);
    for (const { events } of [twoBytes, pairs, threeBytes]) expect(finishOf(events).finishReason).toBe('length');
  });

  it('lets a reply within the limits through untouched', async () => {
    llm.script({ huge: { chars: 3000 } });
    const { events } = await collect(fixture.router.stream(callRequest(capped)));
    expect(textOf(events)).toHaveLength(3000);
    expect(finishOf(events).finishReason).toBe('stop');
    expect(upstream().closedByClient).toBe(false);
  });
});
