// The reflect schedule: a pass every interval by the replica holding the reflect lease only, released after each
// pass, never two at once, and nothing after stop.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReflectTimer, REFLECT_LEASE } from '../../src/learning/reflect-timer.js';
import { createLogger } from '../../src/obs/logger.js';

const log = createLogger({ level: 'silent' });

describe('reflect timer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function setup(isLeader: boolean) {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const passes: (string | undefined)[] = [];
    const leases: string[] = [];
    const timer = createReflectTimer({
      reflector: {
        async reflect(agentId) {
          passes.push(agentId);
          return [];
        },
      },
      leases: {
        async acquire(name) {
          leases.push(`acquire ${name}`);
          return isLeader;
        },
        async release(name) {
          leases.push(`release ${name}`);
        },
      },
      intervalMs: 1_000,
      log,
    });
    return { timer, passes, leases };
  }

  it('runs a pass over every agent each interval while it holds the lease, releasing it after each', async () => {
    const { timer, passes, leases } = setup(true);
    timer.start();
    expect(passes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes).toEqual([undefined]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes).toEqual([undefined, undefined]);
    expect(leases).toEqual([
      `acquire ${REFLECT_LEASE}`,
      `release ${REFLECT_LEASE}`,
      `acquire ${REFLECT_LEASE}`,
      `release ${REFLECT_LEASE}`,
    ]);
    await timer.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(passes).toHaveLength(2);
  });

  it('leaves the pass to the replica holding the lease', async () => {
    const { timer, passes, leases } = setup(false);
    timer.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(passes).toEqual([]);
    expect(leases).toEqual([`acquire ${REFLECT_LEASE}`, `acquire ${REFLECT_LEASE}`]);
    await timer.stop();
  });
});
