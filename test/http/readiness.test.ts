// /ready's probe: a dependency that fails or never answers is unreachable, and results are shared and kept briefly.
import { describe, expect, it } from 'vitest';
import { createReadiness } from '../../src/http/readiness.js';

const LIMITS = { probeTimeoutMs: 50, cacheMs: 1_000 };

describe('readiness probe', () => {
  it('reports each dependency: ok, failed, or silent past the probe timeout', async () => {
    const readiness = createReadiness({
      probes: {
        storage: () => Promise.reject(new Error('ECONNREFUSED')),
        coordination: () => new Promise<void>(() => undefined),
      },
      now: () => 0,
      limits: LIMITS,
    });
    expect(await readiness()).toEqual({
      isReady: false,
      dependencies: { storage: 'unreachable', coordination: 'unreachable' },
    });
    const inProcess = createReadiness({ probes: {}, now: () => 0, limits: LIMITS });
    expect(await inProcess()).toEqual({ isReady: true, dependencies: { storage: 'ok', coordination: 'ok' } });
  });

  it('pings once for concurrent requests and reuses the answer until cacheMs has passed', async () => {
    let now = 0;
    let pings = 0;
    const readiness = createReadiness({
      probes: { storage: async () => void (pings += 1) },
      now: () => now,
      limits: LIMITS,
    });
    await Promise.all([readiness(), readiness(), readiness()]);
    expect(pings).toBe(1);
    now += 999;
    await readiness();
    expect(pings).toBe(1);
    now += 1;
    await readiness();
    expect(pings).toBe(2);
  });
});
