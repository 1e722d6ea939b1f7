// Capability leases: what a run is granted (the agent's tools minus orchestrate, narrowed by the request) and the
// lease's decision on each call (not leased, revoked, expired, over maxCalls).
import { describe, expect, it } from 'vitest';
import { decide, grantCapabilities, type LeaseState } from '../../src/orchestrate/lease.js';

const stateOf = (capabilities: string[], maxCalls = 10, expiresAt = 1_000): LeaseState => ({
  lease: { leaseId: 'L1', runId: 'r1', parentRunId: null, capabilities, expiresAt, maxCalls },
  calls: 0,
  revoked: false,
});

describe('grantCapabilities', () => {
  it("grants the agent's tools except orchestrate itself", () => {
    expect(grantCapabilities(['current_time', 'orchestrate', 'files__echo'])).toEqual(['current_time', 'files__echo']);
  });

  it('narrows to the requested tools and never grants one the agent lacks', () => {
    expect(grantCapabilities(['current_time', 'files__echo'], ['files__echo', 'shell', 'orchestrate'])).toEqual([
      'files__echo',
    ]);
    expect(grantCapabilities(['current_time'], [])).toEqual([]);
  });
});

describe('decide', () => {
  it('allows a leased tool and counts the call', () => {
    const state = stateOf(['a']);
    expect(decide(state, 'a', 0)).toEqual({ decision: 'allow' });
    expect(state.calls).toBe(1);
  });

  it('denies a tool outside the lease without counting it', () => {
    const state = stateOf(['a']);
    expect(decide(state, 'b', 0)).toEqual({ decision: 'deny', reason: 'not_leased' });
    expect(state.calls).toBe(0);
  });

  it('denies past maxCalls', () => {
    const state = stateOf(['a'], 2);
    decide(state, 'a', 0);
    decide(state, 'a', 0);
    expect(decide(state, 'a', 0)).toEqual({ decision: 'deny', reason: 'over_max_calls' });
  });

  it('denies once the lease expired', () => {
    expect(decide(stateOf(['a'], 10, 1_000), 'a', 1_000)).toEqual({ decision: 'deny', reason: 'expired' });
  });

  it('denies every call of a revoked lease, leased or not', () => {
    const state = stateOf(['a']);
    state.revoked = true;
    expect(decide(state, 'a', 0)).toEqual({ decision: 'deny', reason: 'revoked' });
  });
});
