// Diagnostic events: recorded from the bus with a category and kind, scrubbed, filtered, counted and limited.
import { afterEach, describe, expect, it } from 'vitest';
import { DIAGNOSTICS_MAX_LIMIT } from '../../src/obs/diagnostics.js';
import { delivered, startObs, type ObsStack } from './support.js';

describe('obs diagnostics', () => {
  let stack: ObsStack | undefined;
  afterEach(() => stack?.close());

  it('records diagnostic bus events with category, kind, count, severity and scrubbed data', async () => {
    stack = startObs();
    const { events, obs, clock } = stack;
    // More than the declared payload reaches the recorder, which still keeps only the scrubbed labels.
    const degraded = {
      provider: 'local',
      failures: 1,
      errorKind: 'timeout',
      message: 'upstream said: the secret plan',
      token: 'abc',
    };
    events.emit('provider:degraded', degraded);
    events.emit('diagnostic:channel_health', { channelId: 'ws', count: 3 });
    events.emit('message:sent', {
      agentId: 'default',
      sessionKey: 'default:alice:ws',
      channelId: 'ws',
      traceId: 't1',
      chars: 1,
      finishReason: 'stop',
    });
    await delivered();
    const { events: listed, counts } = await obs.diagnostics.query({});
    expect(listed).toEqual([
      {
        id: 2,
        ts: clock.now,
        category: 'diagnostic',
        kind: 'channel_health',
        count: 3,
        severity: 'info',
        data: { channelId: 'ws', count: 3 },
      },
      {
        id: 1,
        ts: clock.now,
        category: 'provider',
        kind: 'degraded',
        count: 1,
        severity: 'warning',
        data: { errorKind: 'timeout', failures: 1, provider: 'local' },
      },
    ]);
    expect(counts).toEqual({ 'diagnostic:channel_health': 3, 'provider:degraded': 1 });
  });

  it('filters by category and time; counts cover every matching event, not only the listed ones', async () => {
    stack = startObs();
    const { obs } = stack;
    for (let n = 0; n < 5; n += 1) obs.diagnostics.record({ ts: n, category: 'model', kind: 'fallback_attempt' });
    obs.diagnostics.record({ ts: 10, category: 'system', kind: 'error', severity: 'error' });
    const result = await obs.diagnostics.query({ category: 'model', limit: 2, sinceMs: 1 });
    expect(result.events.map((event) => event.ts)).toEqual([4, 3]);
    expect(result.counts).toEqual({ 'model:fallback_attempt': 4 });
  });

  it(`clamps the limit to ${DIAGNOSTICS_MAX_LIMIT}`, async () => {
    stack = startObs();
    for (let n = 0; n < 1001; n += 1) stack.obs.diagnostics.record({ ts: n, category: 'c', kind: 'k' });
    expect((await stack.obs.diagnostics.query({ limit: 10_000 })).events).toHaveLength(DIAGNOSTICS_MAX_LIMIT);
    expect((await stack.obs.diagnostics.query({})).events).toHaveLength(100);
  });
});
