// Runs' own health signals from real turns: a run over its token budget is a budget breach, a run refused by an open
// provider breaker a breaker trip; the same endings of a plain turn (no run tree) record neither.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FleetHealthReport } from '../../src/obs/fleet/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

describe('run health signals', () => {
  let llm: FakeLlm;
  let harness: Harness;
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
  });
  afterAll(async () => {
    await llm.close();
  });
  afterEach(async () => {
    await harness.close();
    llm.reset();
  });

  const rpc = async (method: string, params: Record<string, unknown> = {}) => {
    const response = await callRpc(harness.url, harness.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as Record<string, unknown>;
  };
  const spawnAndWait = async (task: string) => {
    const { runId } = await rpc('session.spawn', { parentKey: 'default:ops:rpc:signals', task });
    await expect.poll(async () => (await rpc('run.get', { runId })).status, { timeout: 10_000 }).not.toBe('running');
    return rpc('run.get', { runId });
  };
  const autonomy = async () => ((await rpc('obs.fleet.health')) as unknown as FleetHealthReport).autonomy;

  it('records a budget breach for a run whose turn exceeds maxTokensPerTurn, not for a plain turn', async () => {
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Worker', provider: 'fake', model: 'fake-model', budget: { maxTokensPerTurn: 100 } } },
    });
    llm.script(
      { text: 'too long', usage: { inputTokens: 400, outputTokens: 50 } },
      { text: 'too long', usage: { inputTokens: 400, outputTokens: 50 } },
    );
    expect(await rpc('agent.execute', { message: 'plain' })).toMatchObject({ finishReason: 'budget_exceeded' });
    expect(await autonomy()).toMatchObject({ budgetBreaches: 0 });
    const run = await spawnAndWait('over budget');
    const block = await autonomy();
    expect(block).toMatchObject({ budgetBreaches: 1, breakerTrips: 0, runs: { total: 1, degraded: 0 } });
    // A budget breach is not one of the spec's worst-run incidents.
    expect(block).not.toHaveProperty('worstRootRunId');
    expect(run).toMatchObject({ status: 'completed' });
  });

  it('records a breaker trip for a run refused by an open provider breaker', async () => {
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Worker', provider: 'fake', model: 'fake-model' } },
    });
    // Three consecutive failures open the provider's breaker.
    for (let failure = 0; failure < 3; failure += 1) {
      llm.script({ status: 500 });
      expect(
        await rpc('agent.execute', {
          message: `fail ${failure}`,
          sessionKey: { tenantId: 'default', userId: 'ops', channelId: 'rpc', peerId: `p${failure}` },
        }),
      ).toMatchObject({ finishReason: 'error' });
    }
    expect(
      await rpc('agent.execute', {
        message: 'refused',
        sessionKey: { tenantId: 'default', userId: 'ops', channelId: 'rpc', peerId: 'p4' },
      }),
    ).toMatchObject({ finishReason: 'circuit_open' });
    expect(await autonomy()).toMatchObject({ breakerTrips: 0 });
    expect(await spawnAndWait('while open')).toMatchObject({ status: 'failed' });
    expect(await autonomy()).toMatchObject({ breakerTrips: 1, budgetBreaches: 0 });
  });
});
