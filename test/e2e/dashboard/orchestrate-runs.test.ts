// Dashboard end to end: a session's orchestrate runs on its detail page, and Kill stopping a running one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from '../../support/http-client.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

const SESSION = { tenantId: 'default', userId: 'ops', channelId: 'test', peerId: 'scripted' };
const SESSION_KEY = 'default:ops:test:scripted';

describe('dashboard orchestrate runs', () => {
  let world: DashboardWorld;
  beforeAll(async () => {
    world = await startDashboardWorld({
      extraAgents: {
        // Its script's current_time call waits for an operator, so the run is running while the page shows it.
        scripter: {
          name: 'Scripter',
          provider: 'fake',
          model: 'fake-model',
          tools: ['orchestrate', 'current_time'],
          requireApproval: ['current_time'],
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  const rpc = async (method: string, params: unknown = {}) => {
    const response = await callRpc(world.gateway.url, world.gateway.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result;
  };
  const runs = async () =>
    ((await rpc('run.list', { kind: 'orchestrate' })) as { runs: { runId: string; status: string }[] }).runs;

  it("lists the session's running script with Kill and Revoke; Kill stops it", async () => {
    world.llm.script(
      {
        toolCalls: [
          { name: 'orchestrate', arguments: { script: 'return await tools.current_time({});', timeoutMs: 60_000 } },
        ],
      },
      { text: 'stopped' },
    );
    const turn = rpc('agent.execute', { agentId: 'scripter', message: 'time?', sessionKey: SESSION });
    await expect
      .poll(async () => (await runs()).map((run) => run.status), { timeout: 15_000, interval: 200 })
      .toEqual(['running']);
    const [run] = await runs();
    const { page } = world.browser;
    await openSignedIn(world, `sessions?key=${encodeURIComponent(SESSION_KEY)}`);
    const section = page.getByRole('region', { name: 'Orchestrate runs' });
    await expect.poll(() => section.getByText(run?.runId ?? '-').count(), { timeout: 10_000 }).toBe(1);
    expect(await section.getByRole('button', { name: 'Revoke' }).count()).toBe(1);
    await capture(world, 'orchestrate-runs');
    await section.getByRole('button', { name: 'Kill' }).click();
    await expect.poll(() => section.getByText(`Killed ${run?.runId}: revoked.`).count()).toBe(1);
    await turn;
    expect((await runs()).map((entry) => entry.status)).toEqual(['revoked']);
    expect(world.browser.problems).toEqual([]);
  });
});
