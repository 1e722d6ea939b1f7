// Delivery traces: recorded by the turn that replied, timed from the message it answered, failures, recent list filters and limits, stats.
import { afterEach, describe, expect, it } from 'vitest';
import { DELIVERY_MAX_LIMIT } from '../../src/obs/delivery.js';
import { startObs, type ObsStack } from './support.js';

describe('obs delivery traces', () => {
  let stack: ObsStack | undefined;
  afterEach(() => stack?.close());

  it('times each reply from its message and marks undelivered ones as failures', async () => {
    stack = startObs();
    const { obs, clock } = stack;
    const aliceAt = clock.now;
    clock.now += 250;
    obs.delivery.replied({ channelId: 'ws', sessionKey: 'default:alice:ws', traceId: 't1', receivedAt: aliceAt });
    const bobAt = clock.now;
    clock.now += 50;
    obs.delivery.replied({
      channelId: 'webhook',
      sessionKey: 'default:bob:webhook',
      traceId: 't2',
      receivedAt: bobAt,
      delivered: false,
    });
    const [failed, ok] = await obs.delivery.recent({});
    expect(ok).toEqual({
      id: 1,
      ts: clock.now - 50,
      channelId: 'ws',
      channelType: 'ws',
      sessionKey: 'default:alice:ws',
      traceId: 't1',
      outcome: 'success',
      latencyMs: 250,
      errorKind: null,
    });
    expect(failed).toMatchObject({ channelId: 'webhook', outcome: 'failure', latencyMs: 50, errorKind: 'undelivered' });
    expect(await obs.delivery.stats()).toEqual({ total: 2, successes: 1, failures: 1, avgLatencyMs: 150 });
  });

  it('filters recent traces by time and channel, newest first, and clamps the limit', async () => {
    stack = startObs();
    const { obs } = stack;
    for (let n = 0; n < 1010; n += 1)
      obs.delivery.record({
        ts: n,
        channelId: n % 2 === 0 ? 'even' : 'odd',
        channelType: 'ws',
        outcome: 'success',
        latencyMs: 1,
      });
    expect(await obs.delivery.recent({})).toHaveLength(100);
    expect(await obs.delivery.recent({ limit: 5000 })).toHaveLength(DELIVERY_MAX_LIMIT);
    expect((await obs.delivery.recent({ sinceMs: 1005, channelId: 'odd' })).map((trace) => trace.ts)).toEqual([
      1009, 1007, 1005,
    ]);
  });

  it('reports zeros when nothing was delivered', async () => {
    stack = startObs();
    expect(await stack.obs.delivery.stats()).toEqual({ total: 0, successes: 0, failures: 0, avgLatencyMs: 0 });
  });
});
