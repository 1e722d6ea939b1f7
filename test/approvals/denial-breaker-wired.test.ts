// The denial breaker as the gateway wires it: approvals count a spawned run's denials and run control aborts its tree,
// which the fleet report counts as a denial-breaker trip, not as a session end.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FleetHealthReport } from '../../src/obs/fleet/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startApprovalGateway, type ApprovalGateway } from './approval-gateway.js';
import { admin } from './approval-support.js';

interface RunEntry {
  runId: string;
  status: string;
  error?: string;
}

describe('denial breaker, wired', () => {
  let llm: FakeLlm;
  let gw: ApprovalGateway;
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
  });
  afterAll(async () => {
    await llm.close();
  });
  afterEach(async () => {
    await gw.close();
    llm.reset();
  });

  it('aborts a spawned run after two timed-out approvals in a row and reports one denial-breaker trip', async () => {
    // The model asks for the gated tool at every step; each request times out, which is a denial. Two denials trip the
    // breaker before the turn's own repeat limit (three identical calls) would end it.
    llm.setDefaultReply(() => ({ toolCalls: [{ name: 'current_time', arguments: {} }] }));
    gw = await startApprovalGateway(llm, { approvals: { timeoutMs: 50, denialBreakerThreshold: 2 } });
    const spawned = await admin(gw, 'session.spawn', {
      parentKey: 'default:alice:test:breaker',
      task: 'check the time',
    });
    const { runId } = spawned.result as { runId: string };

    await expect
      .poll(async () => ((await admin(gw, 'run.get', { runId })).result as RunEntry).status, { timeout: 10_000 })
      .not.toBe('running');
    const run = (await admin(gw, 'run.get', { runId })).result as RunEntry;
    expect(run.status).toBe('completed');
    expect(run.error).toMatch(/denial/i);
    // Two model calls asked for the tool; none came after the second denial.
    expect(llm.chatRequests()).toHaveLength(2);

    const fleet = (await admin(gw, 'obs.fleet.health', {})).result as FleetHealthReport;
    expect(fleet.autonomy).toMatchObject({ denialBreakerTrips: 1 });
    expect(fleet.findings.map((finding) => finding.code)).toContain('autonomy_denial_breaker');
  });
});
